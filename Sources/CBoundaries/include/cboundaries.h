// Data/boundaries.bin, compiled into the binary (see scripts/generate_boundaries.py for its layout).
#ifndef NEWSATLAS_CBOUNDARIES_H
#define NEWSATLAS_CBOUNDARIES_H
#include <stddef.h>
const unsigned char *cboundaries_bytes(void);
size_t cboundaries_count(void);

/// Asks the processor to start bringing the cache line holding `address` in, without waiting for it (a
/// prefetch retires at once, so many can be on their way while other work goes on): for lookups of scattered
/// points in tables larger than the caches. Never faults.
static inline void cboundaries_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
#endif
