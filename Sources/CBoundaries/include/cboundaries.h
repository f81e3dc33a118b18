// Data/boundaries.bin, compiled into the binary (see scripts/generate_boundaries.py for its layout).
#ifndef NEWSATLAS_CBOUNDARIES_H
#define NEWSATLAS_CBOUNDARIES_H
#include <stddef.h>
const unsigned char *cboundaries_bytes(void);
size_t cboundaries_count(void);
#endif
