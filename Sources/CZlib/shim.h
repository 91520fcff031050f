// zlib (Debian's zlib1g-dev): the store compresses the files it keeps.
#include <zlib.h>
