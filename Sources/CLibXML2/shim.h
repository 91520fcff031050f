// libxml2 (Debian's libxml2-dev), for the C shim CXMLShim only: Swift never imports these headers
// (beside Foundation they clash with its bundled ICU).
#include <libxml/parser.h>
