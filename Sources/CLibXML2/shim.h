// libxml2's headers (Debian's libxml2-dev), for the C shim CXMLShim only: Swift never imports them
// (beside Foundation they clash with its bundled ICU). Types only: not linked; CXMLShim loads libxml2
// with dlopen at the first document.
#include <libxml/parser.h>
