// Embeds Data/boundaries.bin at build time with C23's #embed, so the binary needs no data file at run time.
#include "cboundaries.h"

#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char boundaries[] __attribute__((aligned(8))) = {
#embed "../../Data/boundaries.bin"
};

const unsigned char *cboundaries_bytes(void) { return boundaries; }
size_t cboundaries_count(void) { return sizeof boundaries; }
