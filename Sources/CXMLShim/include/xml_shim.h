// A small C face over libxml2 for the record readers. Swift imports this header only: libxml2's own
// headers, imported beside Foundation, clash with Foundation's bundled ICU ('UErrorCode' has different
// definitions), so they stay inside xml_shim.c.
#ifndef HREADERD_XML_SHIM_H
#define HREADERD_XML_SHIM_H

#include <stddef.h>

typedef struct hxml_doc hxml_doc;
typedef const void *hxml_node;

/// Elements a document may nest (libxml2's default is 256): deep enough for a C-CDA statement nested 400
/// `entryRelationship`s deep, far below what a thread's stack or the memory limit would feel.
#define HXML_MAX_DEPTH 1024

/// Parses a document held in memory, safely: no network (XML_PARSE_NONET), no entity substitution, no
/// DTD loading, libxml2's default limits on size kept, its depth limit raised to HXML_MAX_DEPTH. A document that declares a DTD of
/// its own (where entity bombs live) is refused: C-CDA and C32 documents have none. On failure returns
/// NULL and writes a one-line reason into `error`. The first call loads libxml2 (dlopen, see xml_shim.c);
/// when it cannot be loaded, every call fails with that reason.
hxml_doc *hxml_parse(const char *bytes, int length, char *error, int error_length);
void hxml_free(hxml_doc *doc);
/// The depth limit in force (libxml2's own when it cannot be raised); 0 when libxml2 cannot be loaded.
int hxml_max_depth(void);

/// The root element.
hxml_node hxml_root(const hxml_doc *doc);

/// Binds a namespace prefix for XPath expressions.
int hxml_register_namespace(hxml_doc *doc, const char *prefix, const char *uri);

/// Evaluates `expression` with `context` as the context node (NULL: the document). Writes up to
/// `capacity` element or attribute nodes into `nodes`; returns how many matched in all (may be more
/// than `capacity`), or -1 when the expression is not valid XPath.
int hxml_xpath(hxml_doc *doc, hxml_node context, const char *expression, hxml_node *nodes, int capacity);

/// The node's local name (not freed by the caller; valid while the document lives).
const char *hxml_name(hxml_node node);
/// 1 for an element, 2 for an attribute, other libxml2 node types otherwise.
int hxml_type(hxml_node node);
/// An attribute's value (no namespace), or NULL. Free with hxml_string_free.
char *hxml_attribute(hxml_node node, const char *name);
/// An attribute's value in a namespace (xsi:type), or NULL. Free with hxml_string_free.
char *hxml_attribute_ns(hxml_node node, const char *name, const char *uri);
/// The text of the node and its descendants, or NULL. Free with hxml_string_free.
char *hxml_text(hxml_node node);
/// The text of a narrative block as lines: CDA blocks (paragraph, item, tr, caption, list, table) and
/// `br` end a line, table cells end with a tab. At most `max_bytes` bytes; `truncated` is set to 1 when
/// text was left out. Free with hxml_block_text_free.
char *hxml_block_text(hxml_node node, size_t max_bytes, int *truncated);
void hxml_block_text_free(char *text);
/// Frees a string the shim returned.
void hxml_string_free(char *string);

#endif
