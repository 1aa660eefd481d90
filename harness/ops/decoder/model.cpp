// The decoder's weights, its paged cache and one forward step over packed sequences: RMSNorm,
// GQA attention with RoPE, SwiGLU, each op from the step's OpMix (model.h).
#include "harness/ops/decoder/model.h"

#include <ATen/record_function.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <stdexcept>

#include "cases/generators.h"
#include "kernels/softmax/invariant_softmax.h"

namespace samebits::decoder {
namespace {

at::Tensor normal(at::IntArrayRef shape, double scale, at::ScalarType dtype,
                  const at::Device& device, at::Generator& gen) {
  return generate("normal", shape, at::kFloat, device, gen).mul_(scale).to(dtype);
}

// A trained norm weight's range, never zero.
at::Tensor norm_weight(std::int64_t d, at::ScalarType dtype, const at::Device& device,
                       at::Generator& gen) {
  return generate("uniform", {d}, at::kFloat, device, gen).mul_(0.5).add_(1.0).to(dtype);
}

// x [T, heads, d] rotated by its rows' positions (rotate-half form), in float32, cast back.
at::Tensor rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const std::int64_t half = x.size(2) / 2;
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor x1 = xf.narrow(2, 0, half), x2 = xf.narrow(2, half, half);
  const at::Tensor c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  return at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, 2).to(x.scalar_type());
}

// SwiGLU's SiLU of the gate, g / (1 + e^-g). CUDA: at::silu, one elementwise kernel whose every
// element runs the same device code. CPU: ATen's vectorized loop and its scalar remainder take
// different exps (Sleef's and libm's), and which elements fall in a remainder follows the tensor's
// size and the thread split, so a row's bits would follow the batch and the host's thread count.
// There each element is computed alone, in float32, with the softmax family's portable exp.
at::Tensor portable_silu(const at::Tensor& g) {
  at::Tensor f = g.detach().to(at::kFloat).contiguous().clone();
  float* v = f.data_ptr<float>();
  for (std::int64_t i = 0, n = f.numel(); i < n; ++i)
    v[i] = v[i] / (1.0f + kernels::softmax_exp_cpu(-v[i]));  // built without contraction
  return f.to(g.scalar_type());
}

// The same SiLU under autograd (a trainer's forward): its backward, up * s (1 + g (1 - s)) with
// s = 1 / (1 + e^-g), is computed element by element with the same exp, so it does not follow the
// batch either.
struct PortableSilu : public torch::autograd::Function<PortableSilu> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& g) {
    ctx->save_for_backward({g});
    return portable_silu(g);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list up) {
    const at::Tensor g = ctx->get_saved_variables().at(0);
    at::Tensor gf = g.to(at::kFloat).contiguous().clone();
    const at::Tensor uf = up.at(0).to(at::kFloat).contiguous();
    float* v = gf.data_ptr<float>();
    const float* u = uf.data_ptr<float>();
    for (std::int64_t i = 0, n = gf.numel(); i < n; ++i) {
      const float s = 1.0f / (1.0f + kernels::softmax_exp_cpu(-v[i]));
      v[i] = u[i] * (s * (1.0f + v[i] * (1.0f - s)));
    }
    return {gf.to(g.scalar_type())};
  }
};

at::Tensor gate_silu(const at::Tensor& g) {
  if (!g.device().is_cpu()) return at::silu(g);
  return g.requires_grad() ? PortableSilu::apply(g) : portable_silu(g);
}

}  // namespace

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = {"tiny", "small"};
  return names;
}

ModelConfig model_config(const std::string& name) {
  ModelConfig c;
  c.name = name;
  if (name == "tiny") {
    c.layers = 2, c.d_model = 128, c.heads = 2, c.kv_heads = 1, c.head_dim = 64, c.ffn = 256;
    c.vocab = 512, c.page_size = 16;
  } else if (name == "small") {
    c.layers = 8, c.d_model = 1024, c.heads = 16, c.kv_heads = 4, c.head_dim = 64, c.ffn = 2816;
    c.vocab = 32000, c.page_size = 64;
  } else {
    throw std::invalid_argument(fmt::format("unknown decoder model \"{}\"; accepted: {}", name,
                                            fmt::join(model_names(), ", ")));
  }
  return c;
}

Weights make_weights(const ModelConfig& c, at::ScalarType dtype, const at::Device& device,
                     at::Generator& gen, std::int64_t max_positions) {
  Weights w;
  const std::int64_t q_dim = c.heads * c.head_dim, kv_dim = c.kv_heads * c.head_dim;
  const double in_d = 1 / std::sqrt(static_cast<double>(c.d_model));
  w.embed = normal({c.vocab, c.d_model}, 1.0, dtype, device, gen);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    LayerWeights L;
    L.attn_norm = norm_weight(c.d_model, dtype, device, gen);
    L.wq = normal({q_dim, c.d_model}, in_d, dtype, device, gen);
    L.wk = normal({kv_dim, c.d_model}, in_d, dtype, device, gen);
    L.wv = normal({kv_dim, c.d_model}, in_d, dtype, device, gen);
    L.wo =
        normal({c.d_model, q_dim}, 1 / std::sqrt(static_cast<double>(q_dim)), dtype, device, gen);
    L.mlp_norm = norm_weight(c.d_model, dtype, device, gen);
    L.w_gate = normal({c.ffn, c.d_model}, in_d, dtype, device, gen);
    L.w_up = normal({c.ffn, c.d_model}, in_d, dtype, device, gen);
    L.w_down =
        normal({c.d_model, c.ffn}, 1 / std::sqrt(static_cast<double>(c.ffn)), dtype, device, gen);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = norm_weight(c.d_model, dtype, device, gen);
  w.lm_head = normal({c.vocab, c.d_model}, in_d, dtype, device, gen);
  // RoPE angles pos * theta^(-2i/d) in float64 on the host: the same table on every device.
  const std::int64_t half = c.head_dim / 2;
  const at::Tensor pos = at::arange(max_positions, at::kDouble).unsqueeze(1);
  const at::Tensor inv =
      at::pow(c.rope_theta, at::arange(half, at::kDouble).mul(-2.0 / c.head_dim)).unsqueeze(0);
  const at::Tensor angle = pos * inv;
  w.rope_cos = angle.cos().to(at::kFloat).to(device);
  w.rope_sin = angle.sin().to(at::kFloat).to(device);
  return w;
}

KvCache make_cache(const ModelConfig& c, std::int64_t pages, at::ScalarType dtype,
                   const at::Device& device) {
  KvCache cache;
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const auto opts = at::TensorOptions().dtype(dtype).device(device);
    cache.k.push_back(at::zeros({pages, c.page_size, c.kv_heads, c.head_dim}, opts));
    cache.v.push_back(at::zeros({pages, c.page_size, c.kv_heads, c.head_dim}, opts));
  }
  return cache;
}

at::Tensor forward(const ModelConfig& c, const Weights& w, const OpMix& ops, KvCache& cache,
                   const StepBatch& step) {
  const auto device = w.embed.device();
  const std::int64_t batch = static_cast<std::int64_t>(step.cache_lengths.size());
  const std::int64_t tokens = static_cast<std::int64_t>(step.tokens.size());
  PagedStep ps;
  ps.host_q_offsets = step.q_offsets;
  ps.host_cache_lengths = step.cache_lengths;
  ps.host_pages = step.pages;
  ps.page_size = c.page_size;
  std::size_t max_pages = 1;
  std::vector<std::int64_t> positions;
  for (std::int64_t b = 0; b < batch; ++b) {
    max_pages = std::max(max_pages, step.pages[static_cast<std::size_t>(b)].size());
    ps.max_q_len = std::max(ps.max_q_len, step.q_offsets[b + 1] - step.q_offsets[b]);
    ps.max_kv_len =
        std::max(ps.max_kv_len, step.cache_lengths[b] + step.q_offsets[b + 1] - step.q_offsets[b]);
    for (std::int64_t t = step.q_offsets[b]; t < step.q_offsets[b + 1]; ++t)
      positions.push_back(step.cache_lengths[b] + (t - step.q_offsets[b]));
  }
  std::vector<std::int32_t> table(static_cast<std::size_t>(batch) * max_pages, 0);
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto& pages = step.pages[static_cast<std::size_t>(b)];
    std::copy(pages.begin(), pages.end(), table.begin() + b * static_cast<std::int64_t>(max_pages));
  }
  ps.block_table =
      at::tensor(table, at::kInt).view({batch, static_cast<std::int64_t>(max_pages)}).to(device);
  ps.cache_lengths = at::tensor(step.cache_lengths, at::kLong).to(device);
  ps.q_offsets = at::tensor(step.q_offsets, at::kLong).to(device);
  const at::Tensor pos = at::tensor(positions, at::kLong).to(device);
  const at::Tensor cos = w.rope_cos.index_select(0, pos), sin = w.rope_sin.index_select(0, pos);

  // Each stretch runs in a user scope named for it (op_mix.h): localize names layers by them.
  at::Tensor h;
  {
    RECORD_USER_SCOPE("embed");
    h = step.embeddings.defined()
            ? step.embeddings
            : w.embed.index_select(0, at::tensor(step.tokens, at::kLong).to(device));
  }
  at::Tensor pending;  // the last sublayer's output, added into h by the next norm
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const LayerWeights& L = w.layers[static_cast<std::size_t>(l)];
    const auto region = [l](const char* part) { return fmt::format("layer.{}.{}", l, part); };
    at::Tensor x, q, k, v, a;
    {
      RECORD_USER_SCOPE(region("attn_norm"));
      if (l == 0) {
        x = rms_norm(ops, h, L.attn_norm, c.eps);
      } else {
        std::tie(x, h) = add_rms_norm(ops, pending, h, L.attn_norm, c.eps);
      }
    }
    {
      RECORD_USER_SCOPE(region("attn.q"));
      q = rope(linear(ops, x, L.wq).view({tokens, c.heads, c.head_dim}), cos, sin);
    }
    {
      RECORD_USER_SCOPE(region("attn.k"));
      k = rope(linear(ops, x, L.wk).view({tokens, c.kv_heads, c.head_dim}), cos, sin);
    }
    {
      RECORD_USER_SCOPE(region("attn.v"));
      v = linear(ops, x, L.wv).view({tokens, c.kv_heads, c.head_dim});
    }
    {
      RECORD_USER_SCOPE(region("attn"));
      a = attention(ops, q, k, v, cache.k[static_cast<std::size_t>(l)],
                    cache.v[static_cast<std::size_t>(l)], ps);
    }
    at::Tensor o;
    {
      RECORD_USER_SCOPE(region("attn.o"));
      o = linear(ops, a.reshape({tokens, c.heads * c.head_dim}), L.wo);
    }
    {
      RECORD_USER_SCOPE(region("mlp_norm"));
      std::tie(x, h) = add_rms_norm(ops, o, h, L.mlp_norm, c.eps);
      // The planted control (op_mix.h): these rows now follow the batch's other rows.
      if (l == ops.planted_layer) x = x - x.mean(0, /*keepdim=*/true) * 0.25;
    }
    at::Tensor act;
    {
      RECORD_USER_SCOPE(region("mlp.gate_up"));
      act = gate_silu(linear(ops, x, L.w_gate)) * linear(ops, x, L.w_up);
    }
    {
      RECORD_USER_SCOPE(region("mlp.down"));
      pending = linear(ops, act, L.w_down);
    }
  }
  at::Tensor x;
  {
    RECORD_USER_SCOPE("final_norm");
    std::tie(x, h) = add_rms_norm(ops, pending, h, w.final_norm, c.eps);
  }
  RECORD_USER_SCOPE("lm_head");
  const at::Tensor rows = x.index_select(0, at::tensor(step.logit_rows, at::kLong).to(device));
  return log_softmax(ops, linear(ops, rows, w.lm_head));
}

}  // namespace samebits::decoder
