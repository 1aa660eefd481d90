// A test-only op for negative controls: one implementation keeps every contract, and each of the
// others breaks exactly one check kind on purpose, so every "holds" verdict is shown able to fail.
#include "tests/support/control_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"

namespace samebits {
namespace {

// What an implementation gets wrong. Every flaw but `double_accumulator` adds one ULP (towards
// +inf) to an item's running sums under exactly one condition; the smallest possible difference,
// so catching it shows the comparison sees single bits.
enum class Flaw {
  none,
  repeated_call,       // determinism: an identical second call takes a "tuned" path
  batch_size,          // batch_invariance: dense batches of more than one item
  position,            // position_invariance: items after the first of a dense batch
  layout,              // layout_invariance: strided, offset or padded-wider input
  padding,             // padding_invariance: items padded or packed beside others
  chunking,            // chunking_invariance: any chunked run
  double_accumulator,  // equivalence: correctly rounded float64 sums, not the float32 sequence
  one_ulp_high,        // reference: one ULP above the right answer everywhere
};

struct ImplInfo {
  std::string name;
  Flaw flaw;
  CheckKind breaks;
  std::string how;
};

const std::vector<ImplInfo>& impl_table() {
  static const std::vector<ImplInfo> table = {
      {"warm_cache", Flaw::repeated_call, CheckKind::determinism,
       "remembers its last request in the case's workspace; an identical repeat takes a tuned path "
       "one ULP off (autotuning)"},
      {"batch_dependent", Flaw::batch_size, CheckKind::batch_invariance,
       "one ULP up for every item of a dense batch of more than one"},
      {"position_dependent", Flaw::position, CheckKind::position_invariance,
       "one ULP up for the items after the first of a dense batch"},
      {"stride_dependent", Flaw::layout, CheckKind::layout_invariance,
       "one ULP up when its input is strided, at a storage offset, or padded wider than L"},
      {"padding_dependent", Flaw::padding, CheckKind::padding_invariance,
       "one ULP up for items padded to a longer item's length or packed after another"},
      {"chunk_dependent", Flaw::chunking, CheckKind::chunking_invariance,
       "one ULP up when run in chunks"},
      {"double_accumulator", Flaw::double_accumulator, CheckKind::equivalence,
       "accumulates in float64 and rounds each running sum once: exact on exact inputs, but not "
       "the float32 sequence of the others on inexact ones"},
      {"one_ulp_high", Flaw::one_ulp_high, CheckKind::reference,
       "one ULP above the float32 sequential sums everywhere: self-consistent, wrong against the "
       "float64 reference"},
  };
  return table;
}

Flaw flaw_of(const std::string& impl) {
  if (impl == kInvariantImpl) return Flaw::none;
  for (const auto& info : impl_table()) {
    if (info.name == impl) return info.flaw;
  }
  throw std::invalid_argument(fmt::format("control op: unknown implementation \"{}\"", impl));
}

// Running sums of x[:, start:start+length] (x: float32 [rows, W], any strides) accumulated one
// value at a time in Acc. Chunks are separate passes that carry the accumulators across, as a
// chunked prefill carries its state; the sequence of additions is the same, so the bits are too.
template <typename Acc>
at::Tensor running_sums(const at::Tensor& x_any_device, std::int64_t start, std::int64_t length,
                        std::int64_t chunk) {
  const at::Tensor x = x_any_device.cpu();  // a CPU view keeps its strides and offset
  if (x.scalar_type() != at::kFloat || x.dim() != 2) {
    throw std::invalid_argument("control op: expected a float32 [rows, W] tensor");
  }
  const auto in = x.accessor<float, 2>();
  const std::int64_t rows = x.size(0);
  at::Tensor out = at::empty({rows, length}, at::kFloat);
  auto o = out.accessor<float, 2>();
  std::vector<Acc> carry(static_cast<std::size_t>(rows), Acc{0});
  const std::int64_t step = chunk > 0 ? chunk : length;
  for (std::int64_t c0 = 0; c0 < length; c0 += step) {
    const std::int64_t c1 = std::min(c0 + step, length);
    for (std::int64_t r = 0; r < rows; ++r) {
      Acc s = carry[static_cast<std::size_t>(r)];
      for (std::int64_t j = c0; j < c1; ++j) {
        s += static_cast<Acc>(in[r][start + j]);
        o[r][j] = static_cast<float>(s);
      }
      carry[static_cast<std::size_t>(r)] = s;
    }
  }
  return out;
}

// The hash of everything that makes two requests the same call.
std::int64_t request_signature(const BatchRequest& r) {
  std::string key =
      fmt::format("{}|{}|{}|{}|{}", r.impl, r.layout.text,
                  r.padding ? padding_mode_name(*r.padding) : "dense", r.canary_padding, r.chunk);
  for (const Item* item : r.items) key += fmt::format("|{}", static_cast<const void*>(item));
  return static_cast<std::int64_t>(std::hash<std::string>{}(key));
}

class ControlOp final : public Op {
 public:
  explicit ControlOp(ControlOpOptions options) : options_(std::move(options)) {}

  std::string name() const override { return options_.name; }
  std::string description() const override {
    return "test-only negative controls: running sums of [rows, L] items";
  }
  std::vector<ImplSpec> implementations() const override {
    std::vector<ImplSpec> impls = {
        {kInvariantImpl, "float32 running sums in one fixed order", true, true}};
    for (const auto& info : impl_table()) impls.push_back({info.name, info.how, true, true});
    return impls;
  }
  std::vector<AxisSpec> axes() const override {
    return {{"L", AxisSpec::Type::integer, nullptr, {}, "length of each row (the variable dim)"},
            {"rows", AxisSpec::Type::integer, 2, {}, "rows of each item"},
            {"k", AxisSpec::Type::integer, 1, {}, "head sums each row's first k values"},
            dtype_axis("float32"),
            generator_axis("exact")};
  }
  std::vector<std::string> outputs() const override { return {"prefix", "head"}; }
  std::vector<CheckKind> checks() const override { return options_.checks; }
  std::vector<LayoutKind> layouts() const override { return options_.layouts; }
  std::vector<PaddingMode> paddings() const override { return options_.paddings; }

  std::optional<std::string> impossible(const Point& p) const override {
    const std::int64_t length = p.integer("L");
    const std::int64_t k = p.integer("k");
    if (length < 1 || p.integer("rows") < 1) return "L and rows must be positive";
    if (k < 1 || k > length) return fmt::format("k={} must lie in [1, L={}]", k, length);
    if (p.has("lengths")) {
      for (auto n : p.integers("lengths")) {
        if (n < k) return fmt::format("k={} exceeds an item's length {}", k, n);
      }
    }
    if (p.has("chunk") && p.integer("chunk") > length) {
      return fmt::format("chunk {} exceeds L={}", p.integer("chunk"), length);
    }
    return std::nullopt;
  }
  std::optional<std::string> unsupported(const Point& p, const std::string&,
                                         const at::Device&) const override {
    if (p.text("dtype") != "float32") return "the control op computes in float32 only";
    return std::nullopt;
  }

  // The case's workspace: [seen a call, signature of the last call] (read by warm_cache only).
  Shared make_shared(const Point&, const at::Device&, at::Generator&) const override {
    return {{at::zeros({2}, at::kLong)}};
  }
  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const std::int64_t n = spec.length > 0 ? spec.length : p.integer("L");
    return {{generate(p.text("generator"), {p.integer("rows"), n}, parse_dtype(p.text("dtype")),
                      device, gen)},
            n};
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    const Flaw flaw = flaw_of(r.impl);
    const bool repeated = remember(shared, r);
    const bool always = flaw == Flaw::one_ulp_high || (flaw == Flaw::repeated_call && repeated);
    const bool wide = flaw == Flaw::double_accumulator;
    const std::int64_t k = p.integer("k");
    std::vector<at::Tensor> xs;
    for (const Item* item : r.items) xs.push_back(item->inputs.at(0));
    const at::Device device = xs.at(0).device();
    std::vector<Outputs> out;
    auto emit = [&](const at::Tensor& x, std::int64_t start, std::int64_t length,
                    std::int64_t chunk, bool nudge) {
      at::Tensor prefix = wide ? running_sums<double>(x, start, length, chunk)
                               : running_sums<float>(x, start, length, chunk);
      if (nudge) {
        prefix =
            at::nextafter(prefix, at::full_like(prefix, std::numeric_limits<float>::infinity()));
      }
      prefix = prefix.to(device);
      out.push_back({{"prefix", prefix}, {"head", prefix.select(1, k - 1).clone()}});
    };

    if (r.padding) {
      if (*r.padding == PaddingMode::packed) {
        const PackedBatch packed = pack_batch(xs, 1);
        for (std::size_t b = 0; b < xs.size(); ++b) {
          const bool after_another = packed.offsets[b] > 0;
          emit(packed.data, packed.offsets[b], packed.offsets[b + 1] - packed.offsets[b], 0,
               always || (flaw == Flaw::padding && after_another));
        }
        return out;
      }
      const at::Scalar fill = r.canary_padding ? canary_value() : at::Scalar(0.0);
      const PaddedBatch padded = pad_batch(xs, 1, *r.padding, fill);
      const std::int64_t width = padded.data.size(2);
      for (std::size_t b = 0; b < xs.size(); ++b) {
        const bool padded_item = padded.lengths[b] < width;
        emit(padded.data[static_cast<std::int64_t>(b)], padded.starts[b], padded.lengths[b], 0,
             always || (flaw == Flaw::padding && padded_item));
      }
      return out;
    }

    const at::Tensor batch = at::stack(xs);  // [B, rows, L]
    const std::int64_t length = batch.size(2);
    const at::Tensor laid = r.layout.kind == LayoutKind::padded
                                ? pad_to_multiple(batch, r.layout.amount, 2, 0.0)
                                : place(batch, r.layout, 2);
    const bool unusual_layout =
        laid.storage_offset() != 0 || !laid.is_contiguous() || laid.size(2) != length;
    const std::int64_t batch_size = batch.size(0);
    for (std::int64_t b = 0; b < batch_size; ++b) {
      const bool nudge = always || (flaw == Flaw::batch_size && batch_size > 1) ||
                         (flaw == Flaw::position && b > 0) ||
                         (flaw == Flaw::layout && unusual_layout) ||
                         (flaw == Flaw::chunking && r.chunk > 0);
      emit(laid[b], 0, length, r.chunk, nudge);
    }
    return out;
  }

  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    const at::Tensor prefix = item.inputs.at(0).cpu().to(at::kDouble).cumsum(1);
    return {{"prefix", prefix}, {"head", prefix.select(1, p.integer("k") - 1).clone()}};
  }

 private:
  // Records this request as the case's last call; true when the previous call was the same one.
  static bool remember(const Shared& shared, const BatchRequest& r) {
    auto state = shared.tensors.at(0).accessor<std::int64_t, 1>();
    const std::int64_t signature = request_signature(r);
    const bool repeated = state[0] == 1 && state[1] == signature;
    state[0] = 1;
    state[1] = signature;
    return repeated;
  }

  ControlOpOptions options_;
};

}  // namespace

const std::vector<ControlViolator>& control_violators() {
  static const std::vector<ControlViolator> violators = [] {
    std::vector<ControlViolator> v;
    for (const auto& info : impl_table()) v.push_back({info.name, info.breaks, info.how});
    return v;
  }();
  return violators;
}

std::vector<std::string> control_impl_names() {
  std::vector<std::string> names = {kInvariantImpl};
  for (const auto& v : control_violators()) names.push_back(v.impl);
  return names;
}

std::unique_ptr<Op> make_control_op(ControlOpOptions options) {
  return std::make_unique<ControlOp>(std::move(options));
}

}  // namespace samebits
