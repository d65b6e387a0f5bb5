#include "stream_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

void shim_stream_copy(float *dst, const float *src, size_t n)
{
    /* streaming stores need 16-byte aligned destinations: the head up to the first one by
     * memcpy (a float array is 4-byte aligned; one that is not takes memcpy throughout) */
    size_t head = (size_t)((16 - ((uintptr_t)dst & 15)) & 15) / sizeof(float);
    if (n < SHIM_STREAM_MIN_FLOATS || ((uintptr_t)dst & 3)) {
        memcpy(dst, src, n * sizeof(float));
        return;
    }
    memcpy(dst, src, head * sizeof(float));
    dst += head;
    src += head;
    n -= head;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128 a = _mm_loadu_ps(src + i), b = _mm_loadu_ps(src + i + 4);
        __m128 c = _mm_loadu_ps(src + i + 8), d = _mm_loadu_ps(src + i + 12);
        _mm_stream_ps(dst + i, a);
        _mm_stream_ps(dst + i + 4, b);
        _mm_stream_ps(dst + i + 8, c);
        _mm_stream_ps(dst + i + 12, d);
    }
    for (; i + 4 <= n; i += 4)
        _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
    memcpy(dst + i, src + i, (n - i) * sizeof(float));
    _mm_sfence();
}

#else

void shim_stream_copy(float *dst, const float *src, size_t n)
{
    memcpy(dst, src, n * sizeof(float));
}

#endif
