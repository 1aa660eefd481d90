// Compares two tensors the way a contract says (bitwise, ulp, allclose, indices) on the device
// where they live, and returns the evidence: counts, worst errors, a ULP histogram, the first
// mismatches.
#include "harness/diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <optional>
#include <stdexcept>

#include "cases/dtypes.h"
#include "common/digest.h"

namespace samebits {
namespace {

int bit_width(at::ScalarType t) {
  return static_cast<int>(c10::elementSize(t)) * 8;
}

// The raw bits of a floating tensor as a signed integer tensor of the same width.
at::Tensor raw_bits(const at::Tensor& t) {
  switch (c10::elementSize(t.scalar_type())) {
    case 1: return t.view(at::kByte);
    case 2: return t.view(at::kShort);
    case 4: return t.view(at::kInt);
    case 8: return t.view(at::kLong);
  }
  throw std::invalid_argument("unsupported element size");
}

// Sign-magnitude bits -> two's complement ordinal, in int64, so adjacent floats differ by 1.
at::Tensor ordinal(const at::Tensor& t) {
  const int w = bit_width(t.scalar_type());
  at::Tensor u = raw_bits(t).to(at::kLong);
  if (w < 64) u = u.bitwise_and((std::int64_t{1} << w) - 1);  // undo sign extension
  const std::int64_t sign_bit =
      w < 64 ? (std::int64_t{1} << (w - 1)) : std::numeric_limits<std::int64_t>::min();
  const std::int64_t magnitude_mask =
      w < 64 ? sign_bit - 1 : std::numeric_limits<std::int64_t>::max();
  const at::Tensor negative = u.bitwise_and(sign_bit).ne(0);
  const at::Tensor magnitude = u.bitwise_and(magnitude_mask);
  return at::where(negative, magnitude.neg(), magnitude);
}

std::vector<std::int64_t> unravel(std::int64_t flat, at::IntArrayRef shape) {
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t n = shape[d] == 0 ? 1 : shape[d];
    index[d] = flat % n;
    flat /= n;
  }
  return index;
}

std::string hex_bits(std::uint64_t bits, int width) {
  return fmt::format("0x{:0{}x}", bits, width / 4);
}

// Histogram over finite pairs: exact, 1, 2-3, 4-15, 16-255, 256-65535, 65536 and more; one
// int64 count per bucket of ulp_bucket_labels(), left on the device.
std::vector<at::Tensor> ulp_histogram(const at::Tensor& dist, const at::Tensor& finite) {
  static const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
      {0, 0},     {1, 1},         {2, 3}, {4, 15}, {16, 255}, {256, 65535},
      {65536, std::numeric_limits<std::int64_t>::max()}};
  std::vector<at::Tensor> out;
  for (const auto& [low, high] : ranges)
    out.push_back(finite.logical_and(dist.ge(low)).logical_and(dist.le(high)).sum());
  return out;
}

// An element's raw bits (floating) or value (integers, bool) as int64, to travel to the host in
// one tensor with the rest of the evidence.
at::Tensor bits_as_long(const at::Tensor& t) {
  return at::isFloatingType(t.scalar_type()) ? raw_bits(t).to(at::kLong) : t.to(at::kLong);
}

// What bits_as_long gave, printed as element_bits prints it.
std::string bits_text(std::int64_t bits, at::ScalarType dtype) {
  if (!at::isFloatingType(dtype)) return std::to_string(bits);
  const int w = bit_width(dtype);
  auto u = static_cast<std::uint64_t>(bits);
  if (w < 64) u &= (std::uint64_t{1} << w) - 1;
  return hex_bits(u, w);
}

double double_of_bits(std::int64_t bits) {
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// A float64 scalar tensor's bits as int64, so it can share one copy with integer counts.
at::Tensor double_bits(const at::Tensor& scalar) { return scalar.to(at::kDouble).view(at::kLong); }

}  // namespace

at::Tensor ulp_distance(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || !at::isFloatingType(a.scalar_type())) {
    throw std::invalid_argument("ulp_distance: both tensors must share one floating dtype");
  }
  const at::Tensor oa = ordinal(a);
  const at::Tensor ob = ordinal(b);
  at::Tensor distance = (oa - ob).abs();
  if (bit_width(a.scalar_type()) == 64) {
    // Across zero the distance is |oa| + |ob|, which can pass 2^63 - 1 and wrap (2 vs -2 would
    // come out negative, within every max_ulp): saturate instead.
    const at::Tensor across_zero = oa.lt(0).logical_xor(ob.lt(0));
    const at::Tensor too_far = across_zero.logical_and(
        oa.abs().gt(ob.abs().neg().add(std::numeric_limits<std::int64_t>::max())));
    distance.masked_fill_(too_far, std::numeric_limits<std::int64_t>::max());
  }
  return distance;
}

std::pair<double, double> default_tolerances(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf: return {1e-3, 1e-5};
    case at::kBFloat16: return {1.6e-2, 1e-5};
    case at::kFloat: return {1.3e-6, 1e-5};
    case at::kDouble: return {1e-7, 1e-7};
    // Not in torch's table: rtol is each format's epsilon (2^-3 for e4m3fn, 2^-2 for e5m2).
    case at::kFloat8_e4m3fn: return {1.25e-1, 1e-5};
    case at::kFloat8_e5m2: return {2.5e-1, 1e-5};
    default: return {0.0, 0.0};
  }
}

std::string element_bits(const at::Tensor& t, std::int64_t flat_index) {
  const at::Tensor e = t.reshape({-1}).select(0, flat_index).cpu();
  if (!at::isFloatingType(e.scalar_type())) return std::to_string(e.item<std::int64_t>());
  const int w = bit_width(e.scalar_type());
  std::uint64_t bits = static_cast<std::uint64_t>(raw_bits(e).to(at::kLong).item<std::int64_t>());
  if (w < 64) bits &= (std::uint64_t{1} << w) - 1;
  return hex_bits(bits, w);
}

namespace {

// The digest of a tensor `like` whose contiguous bytes are at `data`.
std::string digest_of(const at::Tensor& like, const void* data, std::size_t bytes) {
  Sha256 h;
  const std::string header =
      fmt::format("{}[{}]", dtype_name(like.scalar_type()), fmt::join(like.sizes(), ","));
  h.update(header.data(), header.size());
  h.update(data, bytes);
  return h.hex();
}

std::size_t byte_count(const at::Tensor& t) {
  return static_cast<std::size_t>(t.numel()) * t.element_size();
}

}  // namespace

std::string tensor_sha256(const at::Tensor& t) {
  const at::Tensor host = t.contiguous().cpu();
  return digest_of(host, host.data_ptr(), byte_count(host));
}

std::optional<std::pair<at::Tensor, at::Tensor>> small_pair_on_host(const at::Tensor& a,
                                                                   const at::Tensor& b) {
  if (a.device() != b.device() || a.device().is_cpu() || a.scalar_type() != b.scalar_type())
    return std::nullopt;
  const std::int64_t na = a.numel();
  if ((na + b.numel()) * static_cast<std::int64_t>(a.element_size()) > kHostCompareBytes)
    return std::nullopt;
  const at::Tensor host = at::cat({a.reshape({-1}), b.reshape({-1})}).cpu();
  return std::make_pair(host.narrow(0, 0, na).view(a.sizes()),
                        host.narrow(0, na, b.numel()).view(b.sizes()));
}

std::pair<std::string, std::string> tensor_sha256_pair(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor ca = a.contiguous();
  const at::Tensor cb = b.contiguous();
  if (ca.device() == cb.device() && !ca.device().is_cpu()) {
    // Both sides' bytes in one copy: one synchronization instead of two.
    const at::Tensor host =
        at::cat({ca.reshape({-1}).view(at::kByte), cb.reshape({-1}).view(at::kByte)}).cpu();
    const auto* bytes = static_cast<const std::uint8_t*>(host.data_ptr());
    return {digest_of(ca, bytes, byte_count(ca)),
            digest_of(cb, bytes + byte_count(ca), byte_count(cb))};
  }
  const at::Tensor ha = ca.cpu();
  const at::Tensor hb = cb.cpu();
  // Large outputs hash on two threads (SHA-256 runs at a few hundred MB/s to a few GB/s).
  if (byte_count(ha) + byte_count(hb) >= (std::size_t{8} << 20)) {
    auto first =
        std::async(std::launch::async, [&ha] { return digest_of(ha, ha.data_ptr(), byte_count(ha)); });
    std::string second = digest_of(hb, hb.data_ptr(), byte_count(hb));
    return {first.get(), std::move(second)};
  }
  return {digest_of(ha, ha.data_ptr(), byte_count(ha)), digest_of(hb, hb.data_ptr(), byte_count(hb))};
}

namespace {

// The stats of two tensors of one dtype with the same bits everywhere, or nothing where the
// general path must run: different bits, or NaNs that the comparison counts as mismatches (ulp and
// allclose without equal_nan), since those need their first mismatches listed. What it returns is
// what the general path computes for such a pair: no mismatch, no error, 0 ULP, every finite
// element in the histogram's "0" bucket.
std::optional<DiffStats> identical_bits(const at::Tensor& baseline, const at::Tensor& variant,
                                        const Comparison& how) {
  if (baseline.scalar_type() != variant.scalar_type() || baseline.numel() == 0) {
    return std::nullopt;
  }
  const at::ScalarType dtype = variant.scalar_type();
  const bool floating = at::isFloatingType(dtype);
  const at::Tensor b = baseline.to(variant.device()).reshape({-1});
  const at::Tensor v = variant.reshape({-1});
  // One reduction's worth of counts, copied once: differing elements, NaNs, finite elements.
  std::vector<at::Tensor> counts = {raw_bits(b).ne(raw_bits(v)).sum()};
  if (floating) {
    // (ATen has no isnan or isfinite for the 8-bit formats: their float values tell the same.)
    const at::Tensor values = c10::elementSize(dtype) == 1 ? b.to(at::kFloat) : b;
    counts.push_back(values.isnan().sum());
    counts.push_back(values.isfinite().sum());
  }
  const at::Tensor host = at::stack(counts).cpu();
  const std::int64_t* c = host.data_ptr<std::int64_t>();
  if (c[0] != 0) return std::nullopt;
  const bool by_bits = how.mode == CompareMode::bitwise || how.mode == CompareMode::indices;
  if (floating && c[1] > 0 && !by_bits && !how.equal_nan) return std::nullopt;
  // A negative tolerance fails even equal values: the general path says how.
  if (how.rtol.value_or(0) < 0 || how.atol.value_or(0) < 0) return std::nullopt;
  DiffStats d;
  d.mode = how.mode;
  d.dtype = dtype_name(dtype);
  d.shape.assign(variant.sizes().begin(), variant.sizes().end());
  d.numel = v.numel();
  if (floating) {
    d.max_ulp = 0;
    d.ulp_histogram = {{"0", c[2]},       {"1", 0},         {"2-3", 0},    {"4-15", 0},
                       {"16-255", 0},     {"256-65535", 0}, {">=65536", 0}};
    if (how.mode == CompareMode::allclose) {
      const auto defaults = default_tolerances(dtype);
      d.tolerance = fmt::format(
          "rtol={} atol={}{}", how.rtol.value_or(defaults.first), how.atol.value_or(defaults.second),
          how.rtol ? "" : fmt::format(" ({} defaults of torch.testing)", d.dtype));
    }
  }
  return d;
}

}  // namespace

DiffStats compare_tensors(const at::Tensor& baseline, const at::Tensor& variant,
                          const Comparison& how) {
  if (baseline.sizes() == variant.sizes()) {
    if (auto same = identical_bits(baseline, variant, how)) return *same;
  }
  return compare_tensors_general(baseline, variant, how);
}

DiffStats compare_tensors_general(const at::Tensor& baseline_in, const at::Tensor& variant_in,
                                  const Comparison& how) {
  if (baseline_in.sizes() != variant_in.sizes()) {
    throw std::invalid_argument(fmt::format("compare: shapes differ: [{}] vs [{}]",
                                            fmt::join(baseline_in.sizes(), ","),
                                            fmt::join(variant_in.sizes(), ",")));
  }
  const at::ScalarType vt = variant_in.scalar_type();
  at::Tensor baseline = baseline_in.to(variant_in.device());
  const bool widened_reference =
      baseline.scalar_type() == at::kDouble && vt != at::kDouble && at::isFloatingType(vt);
  if (baseline.scalar_type() != vt && !widened_reference) {
    throw std::invalid_argument(fmt::format("compare: dtypes differ: {} vs {}",
                                            dtype_name(baseline.scalar_type()), dtype_name(vt)));
  }
  const at::Tensor b_exact = baseline.reshape({-1});
  const at::Tensor v = variant_in.reshape({-1});
  // Bitwise and ulp compare in the variant's dtype: a float64 reference is rounded to it first.
  const at::Tensor b = widened_reference ? b_exact.to(vt) : b_exact;

  DiffStats d;
  d.mode = how.mode;
  d.dtype = dtype_name(vt);
  d.shape.assign(variant_in.sizes().begin(), variant_in.sizes().end());
  d.numel = v.numel();

  // Every count and extreme goes into `scalars` (int64; doubles by their bits) and travels to the
  // host in one copy: one synchronization, where each on its own took one.
  at::Tensor mismatch;
  std::vector<at::Tensor> scalars;
  const auto max_or_zero = [&](const at::Tensor& t) {
    return d.numel ? t.max() : at::zeros({}, t.options());  // max() of an empty tensor throws
  };
  const bool floating = at::isFloatingType(vt);
  at::Tensor dist;
  if (floating) {
    const at::Tensor b64 = (how.mode == CompareMode::allclose ? b_exact : b).to(at::kDouble);
    const at::Tensor v64 = v.to(at::kDouble);
    const at::Tensor finite = b64.isfinite().logical_and(v64.isfinite());
    const at::Tensor abs_err = at::where(finite, (b64 - v64).abs(), at::zeros_like(b64));
    const at::Tensor rel_err =
        at::where(finite.logical_and(b64.ne(0)), abs_err / b64.abs(),
                  at::where(abs_err.gt(0), at::full_like(b64, INFINITY), at::zeros_like(b64)));
    const at::Tensor both_nan = b64.isnan().logical_and(v64.isnan());
    // Non-finite pairs agree when equal (same infinity), both NaN where the contract allows it,
    // or, when bits are compared, with the same bits (one NaN payload on both sides).
    const bool by_bits = how.mode == CompareMode::bitwise || how.mode == CompareMode::indices;
    const at::Tensor nonfinite_same =
        b64.eq(v64)
            .logical_or(how.equal_nan ? both_nan : at::zeros_like(both_nan))
            .logical_or(by_bits ? raw_bits(b).eq(raw_bits(v)) : at::zeros_like(both_nan));
    const at::Tensor nonfinite_differs =
        finite.logical_not().logical_and(nonfinite_same.logical_not());
    dist = ulp_distance(b, v);
    switch (how.mode) {
      case CompareMode::bitwise:
      case CompareMode::indices: mismatch = raw_bits(b).ne(raw_bits(v)); break;
      case CompareMode::ulp:
        mismatch = finite.logical_and(dist.gt(how.max_ulp)).logical_or(nonfinite_differs);
        break;
      case CompareMode::allclose: {
        const auto defaults = default_tolerances(vt);
        const double rtol = how.rtol.value_or(defaults.first);
        const double atol = how.atol.value_or(defaults.second);
        d.tolerance =
            fmt::format("rtol={} atol={}{}", rtol, atol,
                        how.rtol ? "" : fmt::format(" ({} defaults of torch.testing)", d.dtype));
        const at::Tensor close = abs_err.le(b64.abs().mul(rtol).add(atol));
        mismatch = finite.logical_and(close.logical_not()).logical_or(nonfinite_differs);
        break;
      }
    }
    scalars = {double_bits(max_or_zero(abs_err)), double_bits(max_or_zero(rel_err)),
               nonfinite_differs.sum(),
               max_or_zero(at::where(finite, dist, at::zeros_like(dist)))};
    for (auto& bucket : ulp_histogram(dist, finite)) scalars.push_back(std::move(bucket));
  } else {
    mismatch = b.ne(v);
    scalars = {double_bits(max_or_zero((b.to(at::kDouble) - v.to(at::kDouble)).abs()))};
  }
  if (d.numel == 0) mismatch = at::zeros({0}, v.options().dtype(at::kBool));
  scalars.push_back(mismatch.sum());
  for (auto& t : scalars) t = t.to(at::kLong).reshape({1});
  const at::Tensor host = at::cat(scalars).cpu();
  const std::int64_t* h = host.data_ptr<std::int64_t>();
  d.max_abs_error = double_of_bits(h[0]);
  if (floating) {
    d.max_rel_error = double_of_bits(h[1]);
    d.nonfinite_mismatches = h[2];
    if (d.nonfinite_mismatches == 0) d.max_ulp = static_cast<std::uint64_t>(h[3]);
    const auto& labels = ulp_bucket_labels();
    for (std::size_t i = 0; i < labels.size(); ++i) d.ulp_histogram.emplace_back(labels[i], h[4 + i]);
  }
  d.mismatched = h[host.numel() - 1];
  d.mismatch_fraction =
      d.numel ? static_cast<double>(d.mismatched) / static_cast<double>(d.numel) : 0.0;
  const bool budget = how.max_mismatches.has_value() || how.max_mismatch_fraction.has_value();
  d.within =
      d.mismatched == 0 || (budget && d.mismatched <= how.max_mismatches.value_or(d.mismatched) &&
                            d.mismatch_fraction <= how.max_mismatch_fraction.value_or(1.0));

  if (d.mismatched > 0) {
    const at::Tensor where = mismatch.nonzero().reshape({-1}).slice(0, 0, kFirstMismatches);
    // allclose judged against the exact float64 reference: show it, not its rounding (which may
    // equal the variant); ULPs still count from the rounded reference. One copy brings the
    // indices, both sides' bits and values, and the ULP distances.
    const at::Tensor shown = (how.mode == CompareMode::allclose ? b_exact : b).index_select(0, where);
    const at::Tensor vs = v.index_select(0, where);
    std::vector<at::Tensor> rows = {where, bits_as_long(shown), bits_as_long(vs),
                                    shown.to(at::kDouble).view(at::kLong),
                                    vs.to(at::kDouble).view(at::kLong)};
    if (floating) rows.push_back(dist.index_select(0, where));
    const at::Tensor evidence = at::stack(rows).cpu();
    const std::int64_t n = evidence.size(1);
    const std::int64_t* e = evidence.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i) {
      Mismatch m;
      m.index = unravel(e[i], variant_in.sizes());
      m.baseline_bits = bits_text(e[n + i], shown.scalar_type());
      m.variant_bits = bits_text(e[2 * n + i], vt);
      m.baseline = double_of_bits(e[3 * n + i]);
      m.variant = double_of_bits(e[4 * n + i]);
      if (floating && std::isfinite(m.baseline) && std::isfinite(m.variant)) {
        m.ulp = static_cast<std::uint64_t>(e[5 * n + i]);
      }
      d.first_mismatches.push_back(std::move(m));
    }
  }
  return d;
}

}  // namespace samebits
