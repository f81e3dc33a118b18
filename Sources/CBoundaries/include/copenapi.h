// Documentation/openapi.json, compiled into the binary: the HTTP API's OpenAPI 3.1 document.
#ifndef NEWSATLAS_COPENAPI_H
#define NEWSATLAS_COPENAPI_H
#include <stddef.h>
const unsigned char *copenapi_bytes(void);
size_t copenapi_count(void);
#endif
