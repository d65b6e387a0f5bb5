/* Hopper's tensor maps (the descriptors TMA copies read) over a column-major FP32 operand, made with
 * the driver's cuTensorMapEncodeTiled, found once through the runtime (no link to the driver
 * library). Used by tf32_tma.cu; bench/tf32_split_rate.cu measured the copies first. */
#ifndef SHIM_TENSOR_MAP_H
#define SHIM_TENSOR_MAP_H

#include <cstdint>

#include <cuda.h>

namespace sgemm {

/* the driver has cuTensorMapEncodeTiled (asked once) */
bool tensor_maps_usable();

/* an operand TMA can read: ptr 16-byte aligned, the leading dimension (in floats) a multiple of 4
 * and its bytes below 2^40 */
bool tma_readable(const float *ptr, int64_t ld);

/* A 2-D map over inner x outer floats at ptr (element (i, o) at ptr[o * ld + i]), boxes of box_inner
 * (<= 32: 128 bytes) x box_outer (<= 256) with the 128-byte swizzle (in each 1024-byte group of 8
 * box rows, row r's 16-byte chunk c lies at chunk c ^ r), zeros read past the edges. False when the
 * operand does not meet TMA's rules (ptr 16-byte aligned, ld a multiple of 4) or the driver refused. */
bool tensor_map_2d(CUtensorMap *map, const float *ptr, int64_t inner, int64_t outer, int64_t ld, int box_inner,
                   int box_outer);

} // namespace sgemm

#endif
