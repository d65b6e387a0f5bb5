/* The split of an FP32 value into TF32 parts, shared by the tensor-core variants (tf32_*.cu):
 * hi = TF32(x) rounded to nearest, lo = TF32(x - hi); 3xTF32 sums lo*hi + hi*lo + hi*hi.
 * IEEE guards: a non-finite x has lo = 0, and its hx (the hi used in the cross terms) is 0, so that
 * Inf * lo (lo 0 or of the other sign) adds no NaN; a NaN's hi is a quiet NaN with its high mantissa
 * bit set, whatever its payload; a finite x whose TF32 rounding overflows (|x| near FLT_MAX) is
 * truncated instead. PASSES == 1 (plain TF32) needs hi alone. */
#ifndef SHIM_TF32_SPLIT_CUH
#define SHIM_TF32_SPLIT_CUH

#include <cstdint>

namespace sgemm {

__device__ __forceinline__ uint32_t tf32_round(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

struct split_value {
    uint32_t hi, hx, lo;
};

template <int PASSES> __device__ __forceinline__ split_value split(float x)
{
    const uint32_t bits = __float_as_uint(x);
    const bool finite = (bits & 0x7f800000u) != 0x7f800000u;
    uint32_t hi = tf32_round(x);
    if (finite && (hi & 0x7f800000u) == 0x7f800000u)
        hi = bits & 0xffffe000u; /* rounding overflowed: truncate to TF32 instead */
    if (!finite) /* cvt.rna turns a NaN whose payload lies in the 13 low bits into an Inf (seen on
                  * the H200: bench/tf32_split_rate); keep Inf, and make every NaN a quiet NaN
                  * that TF32 (the 19 high bits) still reads as NaN */
        hi = bits & 0x007fffffu ? (bits | 0x00400000u) & 0xffffe000u : bits;
    split_value v;
    v.hi = hi;
    v.hx = PASSES == 3 && finite ? hi : 0u;
    v.lo = PASSES == 3 && finite ? tf32_round(x - __uint_as_float(hi)) : 0u;
    return v;
}

/* TF32 rounding on the bits: round half away from zero on the magnitude (add half a TF32 ulp, clear
 * the 13 low bits; a carry into the exponent is the correct rounding up). For finite values whose
 * rounding does not overflow it equals cvt.rna.tf32.f32, which ptxas expands into some 19
 * instructions on sm_90 against 2 (bench/tf32_split_rate checks split4 against split on all 2^32
 * inputs). */
__device__ __forceinline__ uint32_t tf32_round_bits(uint32_t bits)
{
    return (bits + 0x1000u) & 0xffffe000u;
}

/* Splitting four values at once. When the largest magnitude among them (max_bits) is below
 * FAST_LIMIT every rounding stays finite and split4_fast gives split()'s bits with the rounding on
 * the bits (hx is hi then); otherwise split4_exact applies split() to each. A caller tests a whole
 * share of values once and takes one path for all of them. */
constexpr uint32_t FAST_LIMIT = 0x7f7ff000u;

__device__ __forceinline__ uint32_t max_bits(const float4 &x)
{
    return max(max(__float_as_uint(x.x) & 0x7fffffffu, __float_as_uint(x.y) & 0x7fffffffu),
               max(__float_as_uint(x.z) & 0x7fffffffu, __float_as_uint(x.w) & 0x7fffffffu));
}

template <int PASSES> __device__ __forceinline__ void split4_fast(const float4 &x, uint4 &hi, uint4 &lo)
{
    hi = make_uint4(tf32_round_bits(__float_as_uint(x.x)), tf32_round_bits(__float_as_uint(x.y)),
                    tf32_round_bits(__float_as_uint(x.z)), tf32_round_bits(__float_as_uint(x.w)));
    if (PASSES == 3)
        lo = make_uint4(tf32_round_bits(__float_as_uint(x.x - __uint_as_float(hi.x))),
                        tf32_round_bits(__float_as_uint(x.y - __uint_as_float(hi.y))),
                        tf32_round_bits(__float_as_uint(x.z - __uint_as_float(hi.z))),
                        tf32_round_bits(__float_as_uint(x.w - __uint_as_float(hi.w))));
}

template <int PASSES> __device__ __forceinline__ void split4_exact(const float4 &x, uint4 &hi, uint4 &hx, uint4 &lo)
{
    const split_value a = split<PASSES>(x.x), b = split<PASSES>(x.y), c = split<PASSES>(x.z), d = split<PASSES>(x.w);
    hi = make_uint4(a.hi, b.hi, c.hi, d.hi);
    hx = make_uint4(a.hx, b.hx, c.hx, d.hx);
    lo = make_uint4(a.lo, b.lo, c.lo, d.lo);
}

} // namespace sgemm

#endif
