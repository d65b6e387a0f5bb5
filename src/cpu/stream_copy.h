/* Copies of staged data that bypass the caches: the host side of the staging pipeline moves blocks
 * between the caller's matrices and pinned buffers that nothing on the host reads again soon (the
 * GPU's copy engine reads one, the caller reads the other after the call). Ordinary stores first
 * read every destination line into the cache; streaming stores do not, which saves a third of
 * the memory traffic of a copy when memory bandwidth is what limits the host. */
#ifndef SHIM_STREAM_COPY_H
#define SHIM_STREAM_COPY_H

#include <stddef.h>

/* below this many floats a copy is made with memcpy (a partly written cache line costs a
 * streaming store more than it saves) */
#define SHIM_STREAM_MIN_FLOATS 256

/* dst[0..n) = src[0..n), dst and src not overlapping; streaming stores where the machine has them
 * and n >= SHIM_STREAM_MIN_FLOATS. The stores are ordered before the caller's later ones (a fence
 * at the end), so a copy engine started afterwards reads what was written. */
void shim_stream_copy(float *dst, const float *src, size_t n);

#endif
