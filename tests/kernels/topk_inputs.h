// Seeded top-k inputs that stress the tie order: distinct-ish normals, few distinct values, one
// value, signed zeros, NaN/inf sprinkled in, relu'd normals (a mass of +0.0 ties at the bottom of
// the positives), and values spread over many binades on both sides of zero. Shared by the CPU and
// GPU top-k tests.
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace samebits {

inline const char* const kTopkInputKinds[] = {"normal",   "ties", "constant", "signed_zeros",
                                              "specials", "relu", "wide"};

// [rows, n] of `kind` in float32 (callers convert), from seed `seed`.
inline at::Tensor topk_input(const std::string& kind, std::int64_t rows, std::int64_t n,
                             std::uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(at::kFloat);
  if (kind == "ties") return at::randint(0, 4, {rows, n}, gen, opts);
  if (kind == "constant") return at::ones({rows, n}, opts);
  if (kind == "signed_zeros") {
    // +0.0, -0.0 and a few 1s and -1s: zeros tie whatever their sign.
    const at::Tensor pick = at::randint(0, 8, {rows, n}, gen, opts);
    at::Tensor x = at::zeros({rows, n}, opts);
    x.masked_fill_(pick.eq(1), -0.0).masked_fill_(pick.eq(2), 1.0).masked_fill_(pick.eq(3), -1.0);
    return x;
  }
  at::Tensor x = at::randn({rows, n}, gen, opts);
  if (kind == "relu") return x.clamp_min_(0.0);
  if (kind == "wide") return x.mul_(at::randn({rows, n}, gen, opts).mul_(8).exp2_());
  if (kind == "specials") {
    const at::Tensor pick = at::randint(0, 16, {rows, n}, gen, opts);
    x.masked_fill_(pick.eq(0), NAN)
        .masked_fill_(pick.eq(1), -NAN)
        .masked_fill_(pick.eq(2), INFINITY)
        .masked_fill_(pick.eq(3), -INFINITY)
        .masked_fill_(pick.eq(4), -0.0)
        .masked_fill_(pick.eq(5), 0.0);
  }
  return x;
}

}  // namespace samebits
