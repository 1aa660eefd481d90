// The attention-indexer op of reference 000: per item q @ K^T, relu, * w, sum over heads, top-k.
// Three ATen formulations show where a padded head sum and a sort instead of topk change bits;
// the bundled samebits kernel runs a ragged batch in one call, on tensor cores or exactly.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cases/draw.h"
#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/indexer_pipelines.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/topk/invariant_topk.h"

namespace samebits {
namespace {

constexpr const char* kLoop = "aten.loop";
constexpr const char* kLoopSort = "aten.loop_sort";
constexpr const char* kPadded = "aten.padded";
constexpr const char* kSamebits = "samebits";             // the op's default: tensor_cores
constexpr const char* kSamebitsExact = "samebits.exact";  // algorithm="exact"

// e4m3fn's largest finite value.
constexpr double kFloat8Max = 448.0;

// Neighbours (items 1, 2, ...) of an item of length L get lengths drawn uniformly from
// [ceil(L / 2), floor(3 L / 2)], so every batch is ragged around the item under test.
struct LengthRange {
  std::int64_t shortest;
  std::int64_t longest;
};
LengthRange neighbour_lengths(std::int64_t length) {
  return {std::max<std::int64_t>(1, (length + 1) / 2), std::max<std::int64_t>(1, 3 * length / 2)};
}

// 2^-e with 4^e <= n < 4^(e + 1): about 1 / sqrt(n), and a power of two, so scaling keeps the
// exact generators ("exact", "rounded", "distinct") exact. q gets it for head_dim (the softmax
// scale), w for heads, so the scores stay O(1) whatever the sizes and one tolerance fits all.
double power_of_two_inverse_sqrt(std::int64_t n) {
  int e = 0;
  while ((std::int64_t{4} << (2 * e)) <= n) ++e;
  return std::ldexp(1.0, -e);
}

// bfloat16, float16 and float32 for the ATen pipelines; bfloat16 and float8_e4m3fn for samebits.
bool accepted_dtype(at::ScalarType t) {
  return t == at::kBFloat16 || t == at::kHalf || t == at::kFloat || t == at::kFloat8_e4m3fn;
}

// The per-tensor float8 scale of x: the power of two 2^e with max|x| / 2^e in (224, 448], so
// x / scale is exact before rounding to e4m3fn, never overflows it, and scale products stay exact
// (q_scale * k_scale, dot * scale). 1 for an all-zero tensor.
double float8_scale(const at::Tensor& x) {
  const double amax = x.abs().max().item<double>();
  if (!(amax > 0.0)) return 1.0;
  int e = static_cast<int>(std::ceil(std::log2(amax / kFloat8Max)));
  while (amax / std::ldexp(1.0, e) > kFloat8Max) ++e;
  while (amax / std::ldexp(1.0, e - 1) <= kFloat8Max) --e;
  return std::ldexp(1.0, e);
}

IndexerInputs indexer_inputs(const Item& item) {
  const auto& in = item.inputs;
  return {in.at(0), in.at(1), in.at(2), in.size() > 3 ? in[3] : at::Tensor(),
          in.size() > 4 ? in[4] : at::Tensor()};
}

class IndexerOp final : public Op {
 public:
  std::string name() const override { return "indexer"; }
  std::string description() const override {
    return "attention indexer per item: (q @ K^T).relu() * w[:, None], summed over heads, top-k "
           "indices; q [H, d] and K [L, d] in the input dtype (float8: with per-tensor "
           "power-of-two scales), w [H] float32";
  }
  std::vector<ImplSpec> implementations() const override {
    return {
        {kLoop, "per item: matmul, relu, * w, sum(dim=0), at::topk", true, true},
        {kLoopSort,
         "per-item scores as in the loop, one stable descending at::argsort over a -inf "
         "padded [B, maxL] buffer",
         true, true},
        {kPadded,
         "keys zero-padded to [B, maxL, d], one bmm, relu, * w, sum over heads of the padded "
         "[B, H, maxL] buffer, padding set to -inf, one stable argsort",
         true, true},
        {kSamebits,
         "torch.ops.samebits.indexer as called by default (algorithm \"tensor_cores\"): "
         "every item in one call, keys packed end to end with offsets; q @ K^T on bf16 MMA "
         "with float32 accumulation (float8 widened exactly to f16, f16 MMA), not rounded to the "
         "input dtype; heads summed in ascending order, top-k in the stable descending order "
         "(kernels/indexer). Bits invariant to batch and position on one GPU, within the "
         "bound of kernels/indexer/indexer_error_bound.h of float64; the CPU twin takes the "
         "dots in float64, rounded once. bfloat16 or float8_e4m3fn inputs",
         true, true},
        {kSamebitsExact,
         "torch.ops.samebits.indexer with algorithm=\"exact\": every item in one call, keys "
         "packed end to end with offsets; float32 fma dot products (no rounding of q @ K^T "
         "to the input dtype), heads summed in ascending order, top-k in the stable "
         "descending order; the CUDA kernel and the CPU twin give the same bits. bfloat16 or "
         "float8_e4m3fn inputs",
         true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    using T = AxisSpec::Type;
    return {{"heads", T::integer, 64, {}, "query heads H"},
            {"head_dim", T::integer, 128, {}, "head dimension d"},
            {"L",
             T::integer,
             nullptr,
             {},
             "keys of the item under test; neighbours draw theirs from [ceil(L/2), floor(3L/2)]"},
            {"k", T::integer, 2048, {}, "indices kept per item (top-k)"},
            {"zero_keys",
             T::number,
             0.0,
             {},
             "fraction of each item's key rows set to exactly zero (unwritten cache slots): their "
             "scores are exactly 0 and tie"},
            dtype_axis("bfloat16"),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {"scores", "indices"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::padding_invariance,
            CheckKind::equivalence,         CheckKind::reference};
  }
  std::vector<LayoutKind> layouts() const override { return {}; }
  std::vector<PaddingMode> paddings() const override {
    return {PaddingMode::right, PaddingMode::left};
  }

  double call_elements(const Point& p, double items) const override {
    const auto heads = static_cast<double>(p.integer("heads"));
    return items * ((static_cast<double>(p.integer("L")) + heads) *
                        static_cast<double>(p.integer("head_dim")) +
                    heads);
  }
  std::string length_axis() const override { return "L"; }
  std::optional<std::string> impossible(const Point& p) const override {
    for (const char* axis : {"heads", "head_dim", "L", "k"}) {
      if (p.integer(axis) < 1)
        return fmt::format("{} must be positive, got {}", axis, p.integer(axis));
    }
    const double zero_keys = p.real("zero_keys");
    if (!(zero_keys >= 0.0 && zero_keys <= 1.0))
      return fmt::format("zero_keys is a fraction in [0, 1], got {}", zero_keys);
    if (!accepted_dtype(parse_dtype(p.text("dtype")))) {
      return fmt::format(
          "the indexer takes bfloat16, float16, float32 (ATen pipelines) or float8_e4m3fn "
          "(samebits) inputs, got {}",
          p.text("dtype"));
    }
    const std::int64_t k = p.integer("k");
    if (p.has("lengths")) {
      const auto lengths = p.integers("lengths");
      const std::int64_t shortest = *std::min_element(lengths.begin(), lengths.end());
      if (k > shortest) return fmt::format("k={} exceeds the shortest length {}", k, shortest);
      return std::nullopt;
    }
    const std::int64_t length = p.integer("L");
    if (p.integer_or("batch", 1) > 1) {
      const LengthRange range = neighbour_lengths(length);
      if (k > range.shortest) {
        return fmt::format(
            "k={} exceeds the shortest neighbour length {} (neighbours of L={} draw lengths from "
            "[{}, {}])",
            k, range.shortest, length, range.shortest, range.longest);
      }
    }
    if (k > length) return fmt::format("k={} exceeds L={}", k, length);
    return std::nullopt;
  }

  std::optional<std::string> unsupported(const Point& p, const std::string& impl,
                                         const at::Device&) const override {
    const at::ScalarType dtype = parse_dtype(p.text("dtype"));
    if (samebits_algorithm(impl)) return samebits_unsupported(p, dtype);
    if (dtype == at::kFloat8_e4m3fn) {
      return fmt::format(
          "{} computes q @ K^T with at::matmul, which has no float8_e4m3fn kernel (a per-item "
          "at::_scaled_mm would have no batched form for aten.padded); float8 runs in samebits "
          "only",
          impl);
    }
    if (!p.has("padding")) return std::nullopt;
    if (impl == kLoop) {
      return "aten.loop runs every item alone and never forms a padded batch: padding has "
             "nothing to change";
    }
    if (impl == kLoopSort && p.text_or("pad_fill", "neutral") == "canary") {
      return "aten.loop_sort pads only its sort buffer, whose -inf fill the sort reads by design; "
             "a NaN there is not a canary but a wrong fill";
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t heads = p.integer("heads");
    const std::int64_t head_dim = p.integer("head_dim");
    const std::int64_t length = spec.length > 0   ? spec.length
                                : spec.index == 0 ? p.integer("L")
                                                  : draw_length(p.integer("L"), device, gen);
    const at::ScalarType dtype = parse_dtype(p.text("dtype"));
    const std::string& generator = p.text("generator");

    const at::Tensor q = generate(generator, {heads, head_dim}, at::kFloat, device, gen)
                             .mul_(power_of_two_inverse_sqrt(head_dim));
    at::Tensor keys = generate(generator, {length, head_dim}, at::kFloat, device, gen);
    plant(keys, p.real("zero_keys"), 0.0, device, gen);
    at::Tensor weights = generate(generator, {heads}, at::kFloat, device, gen)
                             .mul_(power_of_two_inverse_sqrt(heads));
    if (dtype != at::kFloat8_e4m3fn) return {{q.to(dtype), keys.to(dtype), weights}, length};
    // float8: q and keys quantized per tensor; the scales travel with the item (inputs 3 and 4),
    // and the reference multiplies them back in.
    const double q_scale = float8_scale(q);
    const double k_scale = float8_scale(keys);
    const auto scale_tensor = [&](double scale) {
      return at::full({1}, scale, at::TensorOptions().dtype(at::kFloat).device(device));
    };
    return {{q.div(q_scale).to(dtype), keys.div(k_scale).to(dtype), weights, scale_tensor(q_scale),
             scale_tensor(k_scale)},
            length};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    if (r.layout.kind != LayoutKind::contiguous || r.chunk != 0) {
      throw std::logic_error("indexer: layouts and chunking are not among its checks");
    }
    std::vector<IndexerInputs> items;
    for (const Item* item : r.items) items.push_back(indexer_inputs(*item));
    const std::int64_t k = p.integer("k");
    const PaddingMode side = r.padding.value_or(PaddingMode::right);
    std::vector<IndexerResult> results;
    if (r.impl == kLoop) {
      if (r.padding) throw Unsupported("aten.loop never forms a padded batch");
      results = indexer_loop(items, k);
    } else if (r.impl == kLoopSort) {
      if (r.canary_padding) throw Unsupported("aten.loop_sort's sort buffer is -inf by design");
      results = indexer_loop_sort(items, k, side);
    } else if (r.impl == kPadded) {
      results = indexer_padded(items, k, side, r.canary_padding);
    } else if (const auto algorithm = samebits_algorithm(r.impl)) {
      if (r.padding) throw Unsupported("samebits packs its batch and never forms a padded one");
      results = indexer_samebits(items, k, *algorithm);
    } else {
      throw std::invalid_argument(fmt::format("indexer: unknown implementation \"{}\"", r.impl));
    }
    std::vector<Outputs> out;
    for (auto& result : results) {
      out.push_back({{"scores", std::move(result.scores)}, {"indices", std::move(result.indices)}});
    }
    return out;
  }

  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    IndexerResult result = indexer_reference(indexer_inputs(item), p.integer("k"));
    return {{"scores", std::move(result.scores)}, {"indices", std::move(result.indices)}};
  }

 private:
  // The algorithm a samebits implementation passes to torch.ops.samebits.indexer; none for ATen's.
  static std::optional<kernels::IndexerAlgorithm> samebits_algorithm(const std::string& impl) {
    if (impl == kSamebits) return kernels::IndexerAlgorithm::tensor_cores;
    if (impl == kSamebitsExact) return kernels::IndexerAlgorithm::exact;
    return std::nullopt;
  }

  // What torch.ops.samebits.indexer cannot take (kernels/indexer/invariant_indexer.h), and the
  // padding checks, which have nothing to change for a call that never pads.
  static std::optional<std::string> samebits_unsupported(const Point& p, at::ScalarType dtype) {
    if (dtype != at::kBFloat16 && dtype != at::kFloat8_e4m3fn) {
      return fmt::format(
          "torch.ops.samebits.indexer takes bfloat16 or float8_e4m3fn inputs, not {}",
          p.text("dtype"));
    }
    const std::int64_t heads = p.integer("heads");
    const std::int64_t head_dim = p.integer("head_dim");
    if (!kernels::indexer_heads_supported(heads)) {
      return fmt::format("torch.ops.samebits.indexer takes heads 4, 8, 16, 32 or 64, not {}",
                         heads);
    }
    if (head_dim % 4 != 0 || head_dim > kernels::kIndexerMaxHeadDim) {
      return fmt::format(
          "torch.ops.samebits.indexer takes head_dim a multiple of 4 up to {}, not {}",
          kernels::kIndexerMaxHeadDim, head_dim);
    }
    if (p.integer("k") > kernels::kRadixSelectMaxK) {
      return fmt::format("torch.ops.samebits.indexer takes k up to {}, not {}",
                         kernels::kRadixSelectMaxK, p.integer("k"));
    }
    if (p.has("padding")) {
      return "samebits packs the keys end to end with offsets and never forms a padded batch: "
             "padding has nothing to change (batch_invariance and position_invariance run it on "
             "ragged batches)";
    }
    return std::nullopt;
  }

  static std::int64_t draw_length(std::int64_t length, const at::Device& device,
                                  at::Generator& gen) {
    const LengthRange range = neighbour_lengths(length);
    return at::randint(range.shortest, range.longest + 1, {1}, gen,
                       at::TensorOptions().dtype(at::kLong).device(device))
        .item<std::int64_t>();
  }
};

}  // namespace

std::unique_ptr<Op> make_indexer_op() {
  return std::make_unique<IndexerOp>();
}

}  // namespace samebits
