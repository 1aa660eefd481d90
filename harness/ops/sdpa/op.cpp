// Attention, one sequence per item (q [H, Lq, d], k, v [Hkv, Lk, d]): ATen's SDPA (out) or the
// bundled attention (out and lse), where batching, padding and chunking may change the bits.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

#include "cases/draw.h"
#include "cases/dtypes.h"
#include "cases/generators.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"
#include "harness/ops/sdpa/aten_backends.h"
#include "harness/ops/sdpa/batching.h"

namespace samebits {
namespace {

using T = AxisSpec::Type;

// The sizes of one item, with the "0: same as ..." axes resolved.
struct Dims {
  std::int64_t heads, kv_heads, lq, lk, head_dim;
  bool causal;
  bool self_attention() const { return lq == lk; }
};

Dims dims_of(const Point& p) {
  Dims d{};
  d.heads = p.integer("heads");
  d.kv_heads = p.integer("kv_heads") == 0 ? d.heads : p.integer("kv_heads");
  d.lq = p.integer("Lq");
  d.lk = p.integer("Lk") == 0 ? d.lq : p.integer("Lk");
  d.head_dim = p.integer("head_dim");
  d.causal = p.flag_or("causal", false);
  return d;
}

bool is_16_bit(at::ScalarType t) {
  return t == at::kHalf || t == at::kBFloat16;
}

// The op's outputs: the attention output, and the log-sum-exp of implementations that return it.
constexpr const char* kOut = "out";
constexpr const char* kLse = "lse";

// One item's outputs, its lse beside out where the implementation gave one.
Outputs outputs_of(const Attended& a) {
  Outputs o{{kOut, a.out}};
  if (a.lse) o.push_back({kLse, *a.lse});
  return o;
}

class SdpaOp final : public Op {
 public:
  std::string name() const override { return "sdpa"; }
  std::string description() const override {
    return "at::scaled_dot_product_attention of one sequence (q [H, Lq, d], k and v [Hkv, Lk, d]) "
           "per item, batched as [B, H, L, d]; causal masks are bottom-right aligned. Outputs: "
           "out, and for samebits' attention lse (the float32 log-sum-exp of each query row)";
  }
  std::vector<ImplSpec> implementations() const override {
    std::vector<ImplSpec> out;
    for (const auto& i : sdpa_impls()) out.push_back({i.name, i.description, i.cpu, i.cuda});
    return out;
  }
  std::vector<AxisSpec> axes() const override {
    return {{"heads", T::integer, 16, {}, "query heads H"},
            {"kv_heads",
             T::integer,
             0,
             {},
             "key/value heads Hkv (0: as many as heads; fewer is GQA, passed as enable_gqa)"},
            {"Lq", T::integer, nullptr, {}, "queries per sequence (1 is a decode step)"},
            {"Lk",
             T::integer,
             0,
             {},
             "keys per sequence (0: Lq, self-attention). Padding's lengths set Lq and Lk for "
             "self-attention, Lk alone otherwise"},
            {"head_dim", T::integer, 128, {}, "d, the size of each head"},
            {"causal",
             T::flag,
             false,
             {},
             "causal mask, bottom-right aligned: query i sees keys j <= i + Lk - Lq"},
            dtype_axis("bfloat16"),
            generator_axis("normal")};
  }
  std::vector<std::string> outputs() const override { return {kOut, kLse}; }
  // samebits' attention returns the float32 log-sum-exp of each query row beside out; ATen's
  // public SDPA returns out alone.
  // ATen's SDPA: backend flags are process-wide, cuDNN's plans are cached per thread.
  bool serial(const std::string& impl) const override { return !find_sdpa_impl(impl).bundled; }
  std::vector<std::string> impl_outputs(const std::string& impl) const override {
    if (find_sdpa_impl(impl).bundled) return {kOut, kLse};
    return {kOut};
  }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism,         CheckKind::batch_invariance,
            CheckKind::position_invariance, CheckKind::layout_invariance,
            CheckKind::padding_invariance,  CheckKind::chunking_invariance,
            CheckKind::equivalence,         CheckKind::reference};
  }
  // strided:<gap> widens each row of q, k and v (sequence stride d + gap, NaN in the gaps);
  // offset:<n> starts q, k and v n elements into their storage (memory-efficient's alignment gate).
  std::vector<LayoutKind> layouts() const override {
    return {LayoutKind::strided, LayoutKind::offset};
  }
  std::vector<PaddingMode> paddings() const override {
    return {PaddingMode::right, PaddingMode::left, PaddingMode::packed, PaddingMode::paged};
  }

  double call_elements(const Point& p, double items) const override {
    const Dims d = dims_of(p);
    const auto hd = static_cast<double>(d.head_dim);
    return items * (static_cast<double>(d.heads) * static_cast<double>(d.lq) * hd +
                    2.0 * static_cast<double>(d.kv_heads) * static_cast<double>(d.lk) * hd);
  }
  std::optional<std::string> impossible(const Point& p) const override {
    const at::ScalarType dtype = parse_dtype(p.text("dtype"));
    if (!at::isFloatingType(dtype) || at::isFloat8Type(dtype)) {
      return fmt::format("sdpa takes float16, bfloat16, float32 or float64, not {}",
                         p.text("dtype"));
    }
    if (p.integer("heads") < 1 || p.integer("Lq") < 1 || p.integer("head_dim") < 1)
      return "heads, Lq and head_dim must be positive";
    if (p.integer("kv_heads") < 0 || p.integer("Lk") < 0)
      return "kv_heads and Lk must be positive (or 0 for their defaults)";
    const Dims d = dims_of(p);
    if (d.kv_heads > d.heads || d.heads % d.kv_heads != 0)
      return fmt::format("kv_heads ({}) must divide heads ({})", d.kv_heads, d.heads);
    if (d.causal && d.lq > d.lk) {
      return fmt::format("causal with Lq ({}) > Lk ({}) leaves the first queries no key", d.lq,
                         d.lk);
    }
    if (p.has("chunk")) {
      if (!d.causal) return "chunked prefill splits a causal prefill: set causal to true";
      if (!d.self_attention())
        return fmt::format("chunked prefill needs self-attention, Lk = Lq (got Lq {}, Lk {})", d.lq,
                           d.lk);
      if (p.integer("chunk") > d.lq)
        return fmt::format("chunk {} is longer than the sequence (Lq {})", p.integer("chunk"),
                           d.lq);
    }
    if (p.has("padding")) {
      if ((p.text("padding") == "packed" || p.text("padding") == "paged") &&
          p.text_or("pad_fill", "neutral") == "canary") {
        return fmt::format(
            "a {} batch has no padded slots to hold canaries; use right or left "
            "padding",
            p.text("padding"));
      }
      for (auto len : p.integers("lengths")) {
        if (d.causal && !d.self_attention() && len < d.lq) {
          return fmt::format("lengths set Lk here (Lq {} != Lk {}); causal needs each length >= Lq",
                             d.lq, d.lk);
        }
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> unsupported(const Point& p, const std::string& impl_name,
                                         const at::Device& device) const override {
    const SdpaImpl& impl = find_sdpa_impl(impl_name);
    if (device.is_cpu() && !impl.cpu)
      return fmt::format("{} runs only on CUDA (ATen has no CPU kernel for it)", impl.name);
    if (device.is_cuda() && !impl.cuda) return fmt::format("{} runs only on the CPU", impl.name);
    const at::ScalarType dtype = parse_dtype(p.text("dtype"));
    if (device.is_cuda() && !is_16_bit(dtype) &&
        (impl.force == at::SDPBackend::flash_attention ||
         impl.force == at::SDPBackend::cudnn_attention)) {
      return fmt::format("{} on CUDA takes float16 and bfloat16 only, not {}", impl.name,
                         p.text("dtype"));
    }
    if (impl.bundled && !is_16_bit(dtype)) {
      return fmt::format("samebits attention takes float16 and bfloat16, not {}", p.text("dtype"));
    }
    if (impl.bundled) {
      const std::int64_t d = p.integer("head_dim");
      if (d != 64 && d != 128 && d != 256)
        return fmt::format("samebits attention takes head dims 64, 128 and 256, not {}", d);
    }
    if (!impl.bundled && p.has("padding") && p.text("padding") == "paged")
      return "ATen's SDPA takes no paged KV cache (only samebits' attention_with_kvcache does)";
    if (device.is_cuda() && dtype == at::kDouble &&
        impl.force == at::SDPBackend::efficient_attention) {
      return "aten.efficient on CUDA takes float16, bfloat16 and float32, not float64";
    }
    return std::nullopt;
  }

  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const Dims d = dims_of(p);
    std::int64_t lq = d.lq, lk = d.lk;
    if (spec.length > 0) {
      if (d.self_attention()) lq = spec.length;
      lk = spec.length;
    }
    at::Tensor q = draw(p, {d.heads, lq, d.head_dim}, device, gen);
    at::Tensor k = draw(p, {d.kv_heads, lk, d.head_dim}, device, gen);
    at::Tensor v = draw(p, {d.kv_heads, lk, d.head_dim}, device, gen);
    return {{q, k, v}, lk};
  }

  std::vector<Outputs> run(const Point& p, const Shared&, const BatchRequest& r) const override {
    const Dims d = dims_of(p);
    const SdpaSetup setup{&find_sdpa_impl(r.impl), d.causal, d.kv_heads != d.heads};
    std::vector<at::Tensor> qs, ks, vs;
    for (const Item* item : r.items) {
      qs.push_back(item->inputs.at(0));
      ks.push_back(item->inputs.at(1));
      vs.push_back(item->inputs.at(2));
    }
    std::vector<Outputs> out;
    if (r.padding) {
      const at::Scalar fill = r.canary_padding ? canary_value() : at::Scalar(0.0);
      for (const auto& a : attend_varlen(qs, ks, vs, *r.padding, fill, setup))
        out.push_back(outputs_of(a));
      return out;
    }
    // place() lays each tensor out as the request says: rows widened by the gap, or offset.
    const at::Tensor q = place(at::stack(qs), r.layout, -1);
    const at::Tensor k = place(at::stack(ks), r.layout, -1);
    const at::Tensor v = place(at::stack(vs), r.layout, -1);
    const Attended all =
        r.chunk > 0 ? attend_chunked(q, k, v, r.chunk, setup) : attend_batch(q, k, v, setup);
    for (std::int64_t b = 0; b < all.out.size(0); ++b) {
      out.push_back(outputs_of(
          {all.out[b], all.lse ? std::optional<at::Tensor>((*all.lse)[b]) : std::nullopt}));
    }
    return out;
  }

  // softmax(q k^T / sqrt(d) + mask) v in float64 where the item lives (on CUDA, float64 GEMMs: two
  // thirds of the H100 suite's time went to computing these on the CPU), written out step by step
  // rather than through ATen's SDPA, with key/value heads repeated for GQA. out alone: the
  // reference checks state bounds for out, so samebits' lse is compared by the invariance checks
  // only.
  Outputs reference(const Point& p, const Shared&, const Item& item) const override {
    const Dims d = dims_of(p);
    const at::Tensor q = item.inputs.at(0).to(at::kDouble);
    at::Tensor k = item.inputs.at(1).to(at::kDouble);
    at::Tensor v = item.inputs.at(2).to(at::kDouble);
    if (d.kv_heads != d.heads) {
      k = k.repeat_interleave(d.heads / d.kv_heads, 0);
      v = v.repeat_interleave(d.heads / d.kv_heads, 0);
    }
    at::Tensor scores =
        at::matmul(q, k.transpose(-2, -1)).mul_(1.0 / std::sqrt(static_cast<double>(d.head_dim)));
    if (d.causal) {
      const at::Tensor hidden = visible_keys(q.size(1), k.size(1), true, q.device()).logical_not();
      scores.masked_fill_(hidden, -std::numeric_limits<double>::infinity());
    }
    return {{kOut, at::matmul(at::softmax(scores, -1), v)}};
  }
};

}  // namespace

std::unique_ptr<Op> make_sdpa_op() {
  return std::make_unique<SdpaOp>();
}

}  // namespace samebits
