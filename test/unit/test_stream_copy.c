/* shim_stream_copy against memcpy: every length up to past the streaming threshold and a few long
 * ones, every 4-byte offset of the destination within 16 bytes and a destination that is not even
 * 4-byte aligned, the source at other offsets; the floats around the destination stay as they were. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_copy.h"

#define GUARD 8

int main(void)
{
    const size_t lengths_max = 3 * SHIM_STREAM_MIN_FLOATS;
    const size_t longs[] = {4095, 4096, 65536 + 3, 1 << 20};
    size_t cap = (1 << 20) + 64;
    float *src = aligned_alloc(64, cap * sizeof(float));
    unsigned char *raw = aligned_alloc(64, (cap + 2 * GUARD) * sizeof(float) + 64);
    float *want = malloc((cap + 2 * GUARD) * sizeof(float));
    if (!src || !raw || !want)
        return 2;
    for (size_t i = 0; i < cap; i++)
        src[i] = (float)rand() / RAND_MAX - 0.5f;
    int cases = 0, failed = 0;
    for (int byte_off = 0; byte_off < 17; byte_off += 1) {
        if (byte_off % 4 && byte_off != 1 && byte_off != 6)
            continue; /* (all 4-byte offsets, and two that break float alignment) */
        for (int src_off = 0; src_off < 3; src_off++) {
            for (size_t li = 0; li <= lengths_max + sizeof longs / sizeof longs[0]; li++) {
                size_t n = li <= lengths_max ? li : longs[li - lengths_max - 1];
                if (li <= lengths_max && li > 64 && li % 7 && li != SHIM_STREAM_MIN_FLOATS - 1 &&
                    li != SHIM_STREAM_MIN_FLOATS)
                    continue;
                unsigned char *base = raw + byte_off;
                size_t bytes = (n + 2 * GUARD) * sizeof(float);
                memset(base, 0x7f, bytes); /* poison: NaN-like pattern around and in the destination */
                memcpy(want, base, bytes);
                memcpy((unsigned char *)want + GUARD * sizeof(float), src + src_off, n * sizeof(float));
                shim_stream_copy((float *)(base + GUARD * sizeof(float)), src + src_off, n);
                cases++;
                if (memcmp(base, want, bytes)) {
                    if (failed++ < 10)
                        printf("FAIL: n=%zu destination offset %d bytes, source offset %d floats\n", n, byte_off,
                               src_off);
                }
            }
        }
    }
    printf("stream_copy: %d cases, %d failed\n", cases, failed);
    free(src);
    free(raw);
    free(want);
    return failed != 0;
}
