#include "xml_shim.h"

#include <dlfcn.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libxml2 is loaded with dlopen at the first document, not linked: it brings ICU (libicuuc, libicudata)
// and liblzma with it, resident in a daemon that may never read XML. Its headers give the types and the
// structures' layout; every call goes through these pointers.
static struct {
    void (*initParser)(void);
    void (*setGenericErrorFunc)(void *context, xmlGenericErrorFunc handler);
    xmlParserCtxtPtr (*newParserCtxt)(void);
    xmlDocPtr (*ctxtReadMemory)(xmlParserCtxtPtr context, const char *buffer, int size, const char *url, const char *encoding, int options);
    const xmlError *(*ctxtGetLastError)(void *context);
    void (*freeParserCtxt)(xmlParserCtxtPtr context);
    void (*freeDoc)(xmlDocPtr doc);
    xmlNodePtr (*docGetRootElement)(const xmlDoc *doc);
    xmlXPathContextPtr (*xpathNewContext)(xmlDocPtr doc);
    void (*xpathFreeContext)(xmlXPathContextPtr context);
    int (*xpathRegisterNs)(xmlXPathContextPtr context, const xmlChar *prefix, const xmlChar *uri);
    xmlXPathObjectPtr (*xpathEvalExpression)(const xmlChar *expression, xmlXPathContextPtr context);
    void (*xpathFreeObject)(xmlXPathObjectPtr object);
    xmlChar *(*getNoNsProp)(const xmlNode *node, const xmlChar *name);
    xmlChar *(*getNsProp)(const xmlNode *node, const xmlChar *name, const xmlChar *uri);
    xmlChar *(*nodeGetContent)(const xmlNode *node);
    xmlFreeFunc *free;  // libxml2's `xmlFree`, a variable holding its deallocator
    unsigned int *maxDepth;  // libxml2's `xmlParserMaxDepth` (NULL when a libxml2 no longer has it)
} xml;

static pthread_once_t hxml_once = PTHREAD_ONCE_INIT;
// Empty once libxml2 is loaded; until then, and for good when it cannot be, why not.
static char hxml_load_error[256] = "libxml2 cannot be loaded";

static void hxml_load(void) {
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(hxml_load_error, sizeof hxml_load_error, "libxml2 cannot be loaded (install libxml2): %s", reason ? reason : "dlopen failed");
        return;
    }
#define HXML_SYMBOL(field, name)                                                                              \
    if ((*(void **)(&xml.field) = dlsym(library, name)) == NULL) {                                            \
        snprintf(hxml_load_error, sizeof hxml_load_error, "libxml2 has no %s: a newer libxml2 is needed", name); \
        return;                                                                                               \
    }
    HXML_SYMBOL(initParser, "xmlInitParser")
    HXML_SYMBOL(setGenericErrorFunc, "xmlSetGenericErrorFunc")
    HXML_SYMBOL(newParserCtxt, "xmlNewParserCtxt")
    HXML_SYMBOL(ctxtReadMemory, "xmlCtxtReadMemory")
    HXML_SYMBOL(ctxtGetLastError, "xmlCtxtGetLastError")
    HXML_SYMBOL(freeParserCtxt, "xmlFreeParserCtxt")
    HXML_SYMBOL(freeDoc, "xmlFreeDoc")
    HXML_SYMBOL(docGetRootElement, "xmlDocGetRootElement")
    HXML_SYMBOL(xpathNewContext, "xmlXPathNewContext")
    HXML_SYMBOL(xpathFreeContext, "xmlXPathFreeContext")
    HXML_SYMBOL(xpathRegisterNs, "xmlXPathRegisterNs")
    HXML_SYMBOL(xpathEvalExpression, "xmlXPathEvalExpression")
    HXML_SYMBOL(xpathFreeObject, "xmlXPathFreeObject")
    HXML_SYMBOL(getNoNsProp, "xmlGetNoNsProp")
    HXML_SYMBOL(getNsProp, "xmlGetNsProp")
    HXML_SYMBOL(nodeGetContent, "xmlNodeGetContent")
    HXML_SYMBOL(free, "xmlFree")
#undef HXML_SYMBOL
    // Once, before any thread parses (libxml2's rule for threaded programs).
    xml.initParser();
    // libxml2's element depth limit is 256 without XML_PARSE_HUGE; a C-CDA statement nests two elements an
    // entryRelationship, so a document nesting 150 of them was refused whole. The limit is raised, not
    // lifted: XML_PARSE_HUGE would lift every other limit too. Set once here, before any parse.
    xml.maxDepth = (unsigned int *)dlsym(library, "xmlParserMaxDepth");
    if (xml.maxDepth != NULL && *xml.maxDepth < HXML_MAX_DEPTH) *xml.maxDepth = HXML_MAX_DEPTH;
    hxml_load_error[0] = 0;
}

/// Whether libxml2 is loaded (loading it the first time); when not, `hxml_load_error` says why.
static int hxml_ready(void) {
    (void)pthread_once(&hxml_once, hxml_load);
    return xml.free != NULL && hxml_load_error[0] == 0;
}

struct hxml_doc {
    xmlDocPtr doc;
    xmlXPathContextPtr xpath;
};

/// Errors go to the caller as a message, never to stderr.
static void hxml_silent(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

hxml_doc *hxml_parse(const char *bytes, int length, char *error, int error_length) {
    if (!hxml_ready()) {
        snprintf(error, error_length, "%s", hxml_load_error);
        return NULL;
    }
    xml.setGenericErrorFunc(NULL, hxml_silent);
    xmlParserCtxtPtr context = xml.newParserCtxt();
    if (context == NULL) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    // No XML_PARSE_NOENT (entities stay references), no XML_PARSE_DTDLOAD or DTDATTR (nothing fetched
    // or defaulted), no XML_PARSE_HUGE (libxml2's limits stay on, depth at HXML_MAX_DEPTH); XML_PARSE_NONET
    // refuses any fetch.
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
    xmlDocPtr doc = xml.ctxtReadMemory(context, bytes, length, "document.xml", NULL, options);
    if (doc == NULL) {
        const xmlError *last = xml.ctxtGetLastError(context);
        if (last != NULL && last->message != NULL) {
            snprintf(error, error_length, "not well-formed XML at line %d: %s", last->line, last->message);
            size_t end = strlen(error);
            while (end > 0 && (error[end - 1] == '\n' || error[end - 1] == ' ')) error[--end] = 0;
        } else {
            snprintf(error, error_length, "not well-formed XML");
        }
        xml.freeParserCtxt(context);
        return NULL;
    }
    xml.freeParserCtxt(context);
    if (doc->intSubset != NULL || doc->extSubset != NULL) {
        snprintf(error, error_length, "the document declares a DTD (with entities): refused, as record documents have none");
        xml.freeDoc(doc);
        return NULL;
    }
    if (xml.docGetRootElement(doc) == NULL) {
        snprintf(error, error_length, "the document has no root element");
        xml.freeDoc(doc);
        return NULL;
    }
    hxml_doc *result = calloc(1, sizeof(hxml_doc));
    if (result == NULL) {
        xml.freeDoc(doc);
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    result->doc = doc;
    result->xpath = xml.xpathNewContext(doc);
    return result;
}

void hxml_free(hxml_doc *doc) {
    if (doc == NULL) return;
    if (doc->xpath != NULL) xml.xpathFreeContext(doc->xpath);
    xml.freeDoc(doc->doc);
    free(doc);
}

int hxml_max_depth(void) {
    if (!hxml_ready()) return 0;
    return xml.maxDepth != NULL ? (int)*xml.maxDepth : 256;
}

hxml_node hxml_root(const hxml_doc *doc) { return xml.docGetRootElement(doc->doc); }

int hxml_register_namespace(hxml_doc *doc, const char *prefix, const char *uri) {
    if (doc->xpath == NULL) return -1;
    return xml.xpathRegisterNs(doc->xpath, (const xmlChar *)prefix, (const xmlChar *)uri);
}

int hxml_xpath(hxml_doc *doc, hxml_node context, const char *expression, hxml_node *nodes, int capacity) {
    if (doc->xpath == NULL) return -1;
    doc->xpath->node = context != NULL ? (xmlNodePtr)context : (xmlNodePtr)doc->doc;
    xmlXPathObjectPtr result = xml.xpathEvalExpression((const xmlChar *)expression, doc->xpath);
    if (result == NULL) return -1;
    int count = 0;
    if (result->type == XPATH_NODESET && result->nodesetval != NULL) {
        count = result->nodesetval->nodeNr;
        for (int i = 0; i < count && i < capacity; i++) nodes[i] = result->nodesetval->nodeTab[i];
    }
    xml.xpathFreeObject(result);
    return count;
}

const char *hxml_name(hxml_node node) {
    const xmlNode *n = (const xmlNode *)node;
    return n->name != NULL ? (const char *)n->name : "";
}

int hxml_type(hxml_node node) { return (int)((const xmlNode *)node)->type; }

char *hxml_attribute(hxml_node node, const char *name) {
    return (char *)xml.getNoNsProp((const xmlNode *)node, (const xmlChar *)name);
}

char *hxml_attribute_ns(hxml_node node, const char *name, const char *uri) {
    return (char *)xml.getNsProp((const xmlNode *)node, (const xmlChar *)name, (const xmlChar *)uri);
}

char *hxml_text(hxml_node node) { return (char *)xml.nodeGetContent((const xmlNode *)node); }

void hxml_string_free(char *string) { (*xml.free)(string); }

/// A growing text buffer with a cap: what is past the cap is dropped, and `truncated` says so.
typedef struct {
    char *bytes;
    size_t length, capacity, cap;
    int truncated;
} hxml_buffer;

static void hxml_append(hxml_buffer *buffer, const char *text, size_t length) {
    if (buffer->length + length > buffer->cap) {
        length = buffer->cap > buffer->length ? buffer->cap - buffer->length : 0;
        buffer->truncated = 1;
    }
    if (length == 0) return;
    if (buffer->length + length + 1 > buffer->capacity) {
        size_t capacity = buffer->capacity * 2 > buffer->length + length + 1 ? buffer->capacity * 2 : buffer->length + length + 1;
        char *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            buffer->truncated = 1;
            return;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, text, length);
    buffer->length += length;
    buffer->bytes[buffer->length] = 0;
}

static int hxml_is(const xmlNode *node, const char *name) { return node->name != NULL && strcmp((const char *)node->name, name) == 0; }

/// CDA narrative blocks (paragraph, list item, table row, caption) end a line; table cells end with a
/// tab; `br` is a line break. Depth is bounded by libxml2's own parser limit.
static void hxml_walk_text(const xmlNode *node, hxml_buffer *buffer) {
    for (const xmlNode *child = node->children; child != NULL && !buffer->truncated; child = child->next) {
        if (child->type == XML_TEXT_NODE || child->type == XML_CDATA_SECTION_NODE) {
            // The document's own line breaks and tabs are layout: white space. Only blocks break lines.
            for (const char *text = (const char *)child->content; text != NULL && *text != 0 && !buffer->truncated; text++) {
                char c = (*text == '\n' || *text == '\r' || *text == '\t') ? ' ' : *text;
                hxml_append(buffer, &c, 1);
            }
        } else if (child->type == XML_ELEMENT_NODE) {
            if (hxml_is(child, "br")) {
                hxml_append(buffer, "\n", 1);
                continue;
            }
            hxml_walk_text(child, buffer);
            if (hxml_is(child, "td") || hxml_is(child, "th")) {
                hxml_append(buffer, "\t", 1);
            } else if (hxml_is(child, "paragraph") || hxml_is(child, "tr") || hxml_is(child, "item") || hxml_is(child, "caption")
                       || hxml_is(child, "list") || hxml_is(child, "table")) {
                hxml_append(buffer, "\n", 1);
            }
        }
    }
}

char *hxml_block_text(hxml_node node, size_t max_bytes, int *truncated) {
    hxml_buffer buffer = {NULL, 0, 0, max_bytes, 0};
    buffer.bytes = malloc(1);
    if (buffer.bytes == NULL) return NULL;
    buffer.bytes[0] = 0;
    buffer.capacity = 1;
    hxml_walk_text((const xmlNode *)node, &buffer);
    if (truncated != NULL) *truncated = buffer.truncated;
    return buffer.bytes;
}

void hxml_block_text_free(char *text) { free(text); }
