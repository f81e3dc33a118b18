// Embeds Documentation/openapi.json at build time with C23's #embed: serve answers GET /openapi.json with the
// very document the repository holds (and CI checks against a running serve with schemathesis).
#include "copenapi.h"

#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char openapi[] = {
#embed "../../Documentation/openapi.json"
};

const unsigned char *copenapi_bytes(void) { return openapi; }
size_t copenapi_count(void) { return sizeof openapi; }
