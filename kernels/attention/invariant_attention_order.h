// The arithmetic of one attention row, shared by the CUDA kernel and its CPU twin: which values
// meet in which float32 operation, in which order. Nothing here depends on other sequences.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SAMEBITS_ATTENTION_HD __host__ __device__ __forceinline__
#else
#define SAMEBITS_ATTENTION_HD inline
#endif

namespace samebits::kernels::attention_order {

// One query row q (head dim d) of a sequence, at absolute position p in its sequence, attends to
// the keys at absolute positions [0, n): n = p + 1 when causal, else the sequence's key count.
// Everything below is a function of (q, the keys and values at [0, n), scale) alone: not of the
// batch, the other sequences, the chunking, the page size, nor of prefill versus decode.
//
// 1. Keys are cut at fixed absolute positions: tiles of kKeyTile keys, splits of kSplitKeys.
//    A split holds the tiles [s * kSplitKeys, (s + 1) * kSplitKeys) ∩ [0, n).
// 2. Per split, a partial (m, l, acc[d]) from m = -inf, l = +0, acc = +0, tile by tile in order:
//      x[c]  = dot(q, k[c]) * scale_log2     dot: fmaf over j ascending from +0 (dot() below);
//                                            x[c] = -inf for c >= n (masked)
//      m'    = max(m, max_c x[c]) + 0        (max ignores NaN and is exact, so its order does not
//                                            matter; + 0 turns a -0 into +0)
//      alpha = m' == -inf ? 1 : exp2(m - m')
//      p[c]  = m' == -inf ? 0 : exp2(x[c] - m')
//      l     = l * alpha + tile_sum(p)       (tile_sum(): a fixed pairwise tree, below)
//      acc[j]= acc[j] * alpha + pv[j]        pv[j]: fmaf over visible c (c < n) ascending, from +0,
//                                            of p[c] * v[c][j]
//    Masked keys and values are never read. A tile that starts at or beyond n is not visited.
// 3. Splits merge left to right, in split order, from split 0's partial (merge() below).
// 4. out[j] = acc[j] / l rounded to the output type; lse = (m + log2(l)) * ln 2, the natural
//    log-sum-exp of the scaled scores (n = 0 gives out = 0 and lse = -inf).
// exp2 and log2 are ours (exp2() and log2() below), made of IEEE +, *, / only, so the kernel and
// the twin give the same bits for the same inputs.
inline constexpr std::int64_t kKeyTile = 64;
inline constexpr std::int64_t kSplitKeys = 1024;  // 16 tiles
// The tensor-core path's splits (its tiles are kKeyTile keys too); see the end of this file. A
// trade-off measured on the H100: 4096 leaves a single decode over 32k keys 64 blocks (2x the best
// ATen time); 2048 gives it 128 (1.15x) and costs a 4k prefill about 8 % for its one merge.
inline constexpr std::int64_t kTensorCoreSplitKeys = 2048;  // 32 tiles
inline constexpr int kTileSumLeaves = 32;                   // tile_sum(): 32 leaves of 2 keys each
// The tensor-core order's slack on a row's running max (log2 units; see the end of this file).
inline constexpr float kTensorCoreMaxSlack = 8.0f;
inline constexpr float kLog2e = 1.44269504088896340736f;
inline constexpr float kLn2 = 0.693147180559945309417f;

SAMEBITS_ATTENTION_HD float dot(const float* q, const float* k, int d) {
  float s = 0.0f;
  for (int j = 0; j < d; ++j) s = fmaf(q[j], k[j], s);
  return s;
}

// 2^x for float x, within 2 ulp of the exact value: x = i + f with i = round(x), f in
// [-0.5, 0.5]; 2^f by its degree-7 Taylor polynomial in f * ln2 (Horner, from the top term);
// 2^i by building the exponent bits. Below -149 the result is +0, above 128 it is +inf.
SAMEBITS_ATTENTION_HD float exp2(float x) {
  if (x != x) return x;
  if (x < -150.0f) return 0.0f;
  if (x > 128.0f) return INFINITY;
  const float i = floorf(x + 0.5f);
  const float t = (x - i) * kLn2;
  float p = 1.0f / 5040.0f;
  p = p * t + 1.0f / 720.0f;
  p = p * t + 1.0f / 120.0f;
  p = p * t + 1.0f / 24.0f;
  p = p * t + 1.0f / 6.0f;
  p = p * t + 0.5f;
  p = p * t + 1.0f;
  p = p * t + 1.0f;
  // p * 2^i, in two exact steps so that subnormal results round once.
  const int e = static_cast<int>(i);
  const int e1 = e / 2, e2 = e - e / 2;
  return p * ldexpf(1.0f, e1) * ldexpf(1.0f, e2);
}

// log2(x) for x > 0: x = mantissa * 2^e with mantissa in [sqrt(1/2), sqrt(2)); log2(mantissa) by
// 2/ln2 * atanh(s), s = (mantissa - 1) / (mantissa + 1), atanh by its odd series to s^13.
SAMEBITS_ATTENTION_HD float log2(float x) {
  if (x != x || x < 0.0f) return NAN;
  if (x == 0.0f) return -INFINITY;
  if (x == INFINITY) return x;
  int e = 0;
  float m = frexpf(x, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752f) {
    m = m * 2.0f;
    e -= 1;
  }
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float a = 1.0f / 13.0f;
  a = a * s2 + 1.0f / 11.0f;
  a = a * s2 + 1.0f / 9.0f;
  a = a * s2 + 1.0f / 7.0f;
  a = a * s2 + 1.0f / 5.0f;
  a = a * s2 + 1.0f / 3.0f;
  a = a * s2 + 1.0f;
  return static_cast<float>(e) + (2.0f * kLog2e) * (s * a);
}

// The sum of a tile's 64 probabilities: leaf i = p[2i] + p[2i + 1], then five rounds of
// leaf[i] = leaf[i] + leaf[i ^ off] for off = 16, 8, 4, 2, 1 (all leaves at once): a warp's
// butterfly, which leaves the same total in every leaf. `leaves` is overwritten.
SAMEBITS_ATTENTION_HD float tile_sum_of_leaves(float* leaves) {
  for (int off = kTileSumLeaves / 2; off >= 1; off /= 2) {
    float next[kTileSumLeaves];
    for (int i = 0; i < kTileSumLeaves; ++i) next[i] = leaves[i] + leaves[i ^ off];
    for (int i = 0; i < kTileSumLeaves; ++i) leaves[i] = next[i];
  }
  return leaves[0];
}

// Step 2's rescale factor and a probability, with the all-masked case (m' = -inf) pinned.
SAMEBITS_ATTENTION_HD float rescale(float m_old, float m_new) {
  return m_new == -INFINITY ? 1.0f : exp2(m_old - m_new);
}
SAMEBITS_ATTENTION_HD float probability(float x, float m_new) {
  return m_new == -INFINITY ? 0.0f : exp2(x - m_new);
}

// Step 3: (m, l, acc) merged with a later split's (m2, l2, acc2), in place. Products and sums are
// separate IEEE operations (no fused multiply-add).
struct MergeFactors {
  float a, b;
};
SAMEBITS_ATTENTION_HD MergeFactors merge_factors(float& m, float& l, float m2, float l2) {
  const float mm = m > m2 ? m : m2;
  const MergeFactors f{rescale(m, mm), mm == -INFINITY ? 0.0f : exp2(m2 - mm)};
  const float la = l * f.a, lb = l2 * f.b;
  l = la + lb;
  m = mm;
  return f;
}
SAMEBITS_ATTENTION_HD float merge_acc(float acc, float acc2, const MergeFactors& f) {
  const float x = acc * f.a, y = acc2 * f.b;
  return x + y;
}

// Step 4.
SAMEBITS_ATTENTION_HD float output(float acc, float l) {
  return l == 0.0f ? 0.0f : acc / l;
}
SAMEBITS_ATTENTION_HD float lse(float m, float l) {
  if (l == 0.0f) return -INFINITY;
  const float s = m + log2(l);
  return s * kLn2;
}

// Float to bfloat16 / float16 bits, rounding to nearest even (NaN -> 0x7fff, as CUDA's _rn
// conversions give); integer operations only, so both sides round alike.
SAMEBITS_ATTENTION_HD std::uint16_t to_bfloat16_bits(std::uint32_t f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  const std::uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<std::uint16_t>((f + rounding) >> 16);
}
SAMEBITS_ATTENTION_HD std::uint16_t to_float16_bits(std::uint32_t f) {
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t abs = f & 0x7fffffffu;
  if (abs > 0x7f800000u) return 0x7fffu;
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x33000001u) return static_cast<std::uint16_t>(sign);  // below half the least subnormal
  const int exponent = static_cast<int>(abs >> 23) - 127;
  std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
  if (exponent < -14) {  // subnormal: shift the 24-bit significand down to 10 bits + rounding
    const int shift = -1 - exponent;  // 14..24
    const std::uint32_t half = 1u << (shift - 1), rest = mantissa & ((1u << shift) - 1u);
    std::uint32_t m = mantissa >> shift;
    if (rest > half || (rest == half && (m & 1u))) ++m;
    return static_cast<std::uint16_t>(sign | m);
  }
  std::uint32_t bits =
      (static_cast<std::uint32_t>(exponent + 15) << 10) | ((mantissa >> 13) & 0x3ffu);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (bits & 1u))) ++bits;  // may carry into the exponent
  return static_cast<std::uint16_t>(sign | bits);
}

// The tensor-core order (attention_tensor_cores.cu, attention_warpgroups.cu;
// AttentionAlgorithm::tensor_cores). Steps 1-4 as above, with kTensorCoreSplitKeys for the splits
// and, inside a 64-key tile, with "the MMA" either mma.sync m16n8k16 or, in Hopper's prefill
// blocks, wgmma m64nNk16 (bf16 or fp16 inputs, float32 accumulators): the two give the same bits
// for the same 16-wide step onto the same accumulator (probed on the H100 over 3 million sums of
// each kind; the GPU tests compare prefill on either with decode on mma.sync):
//   S[c]   = the MMA's sum over d in 16-wide steps, ascending, from +0: the hardware's own sum
//            within a step
//   top    = max(m, max over visible c of S[c] * scale_log2 rounded) + 0 (for a positive scale
//            taken as the largest S[c] times scale_log2: rounding is monotonic, so the same value)
//   m'     = top if top > m + kTensorCoreMaxSlack, else m (a stale max: p[c] <= 2^slack, and while
//            m stays, alpha = 1 and acc and l are not rescaled)
//   alpha  = m' == m ? 1 : exp2(m - m')
//   p[c]   = m' == -inf ? 0 : exp2(fmaf(S[c], scale_log2, -m')) (one rounding), exp2 the SFU's
//            ex2.approx.ftz (deterministic on a given GPU, not the exp2() above)
//   l      = fmaf(l, alpha, sum): sum = the 32 pair sums p[8b + 2t] + p[8b + 2t + 1] (t = 0..3,
//            b = 0..7) added over b ascending for each t, then t ^ 1, then t ^ 2 (a quad's
//            butterfly)
//   acc[j] = the MMA's accumulation onto acc[j] * alpha (a float32 multiply) of p, rounded to the
//            input type, times v, over the keys in 16-wide steps, ascending
// A tile with no visible key for the row leaves its (m, l, acc) as they were; a split with none is
// not merged. Every one of these operations is per row: the 15 other rows of an m16 tile (other
// tokens, other heads of the KV group, or padding) never enter a row's arithmetic, so the block
// shape, the batch and the launch (one block per split or all splits in one block) cannot change
// a row's bits; nor can which warp computes which value (decode blocks score a tile's keys in four
// warps and meet in shared memory: decode_tile_exchange.cuh). The twin follows the exact order;
// against it, and against float64, the tensor cores add two roundings: the output's and P's
// (tests/kernels/attention_tensor_cores_gpu_test).

}  // namespace samebits::kernels::attention_order
