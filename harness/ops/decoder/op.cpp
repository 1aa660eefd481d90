// `decoder`: a Llama-shaped model served like an engine, one prompt per item; outputs its greedy
// tokens, their log-probabilities and its prompt's, so the checks see a completion change.
#include <fmt/format.h>

#include "cases/dtypes.h"
#include "harness/kernel_capture.h"
#include "harness/ops/decoder/engine.h"
#include "harness/ops/op_support.h"
#include "harness/ops/ops.h"

namespace samebits {
namespace {

using T = AxisSpec::Type;
using decoder::ModelConfig;

// Positions the RoPE table covers: the longest prompt an item draws (2 L) plus what it generates.
std::int64_t max_positions(const Point& p) {
  return 4 * p.integer("L") + p.integer("new_tokens") + 64;
}

// The weights as Shared's flat list: embed, nine per layer, final norm, lm_head, RoPE cos and sin.
std::vector<at::Tensor> flatten(const decoder::Weights& w) {
  std::vector<at::Tensor> out{w.embed};
  for (const auto& L : w.layers) {
    out.insert(out.end(),
               {L.attn_norm, L.wq, L.wk, L.wv, L.wo, L.mlp_norm, L.w_gate, L.w_up, L.w_down});
  }
  out.insert(out.end(), {w.final_norm, w.lm_head, w.rope_cos, w.rope_sin});
  return out;
}

decoder::Weights unflatten(const ModelConfig& c, const std::vector<at::Tensor>& t) {
  decoder::Weights w;
  std::size_t i = 0;
  w.embed = t.at(i++);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    decoder::LayerWeights L;
    for (at::Tensor* x :
         {&L.attn_norm, &L.wq, &L.wk, &L.wv, &L.wo, &L.mlp_norm, &L.w_gate, &L.w_up, &L.w_down})
      *x = t.at(i++);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = t.at(i++);
  w.lm_head = t.at(i++);
  w.rope_cos = t.at(i++);
  w.rope_sin = t.at(i++);
  return w;
}

class DecoderOp final : public Op {
 public:
  std::string name() const override { return "decoder"; }
  std::string description() const override {
    return "a Llama-shaped decoder (RMSNorm, GQA attention with RoPE over a paged KV cache, "
           "SwiGLU; seeded random weights) served like an engine: requests arrive at different "
           "steps, run in one continuous batch with chunked prefill, and decode greedily. One "
           "prompt per item; outputs its tokens, their log-probabilities and its prompt tokens' "
           "log-probabilities; and scores given tokens in one training forward (the logprob "
           "kinds). Implementations are op mixes: each op from ATen or samebits";
  }
  std::vector<ImplSpec> implementations() const override {
    std::vector<ImplSpec> out;
    for (const auto& m : decoder::op_mixes())
      out.push_back({m.name, mix_description(m), true, true});
    return out;
  }
  std::vector<AxisSpec> axes() const override {
    return {{"model", T::text, "tiny", decoder::model_names(),
             "model size: tiny (2 layers, d_model 128) or small (8 layers, d_model 1024, 16/4 "
             "heads, SwiGLU 2816, vocabulary 32000)"},
            {"L", T::integer, 32, {}, "prompt length of the item under test (others: 1 to 2 L)"},
            {"new_tokens", T::integer, 8, {}, "tokens each request generates"},
            {"arrival_spread",
             T::integer,
             4,
             {},
             "requests of a batch join at steps 0 .. arrival_spread"},
            dtype_axis("bfloat16", {"bfloat16", "float16"})};
  }
  std::vector<std::string> outputs() const override {
    return {"tokens", "logprobs", "prompt_logprobs"};
  }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism, CheckKind::batch_invariance, CheckKind::position_invariance,
            CheckKind::chunking_invariance, CheckKind::logprob_consistency};
  }
  std::vector<LayoutKind> layouts() const override { return {}; }

  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("L") < 2) return "L must be at least 2";
    if (p.integer("new_tokens") < 1) return "new_tokens must be at least 1";
    if (p.integer("arrival_spread") < 0) return "arrival_spread must not be negative";
    return std::nullopt;
  }

  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    const ModelConfig c = decoder::model_config(p.text("model"));
    return {flatten(
        decoder::make_weights(c, parse_dtype(p.text("dtype")), device, gen, max_positions(p)))};
  }

  // The item under test has L tokens; its neighbours 1 to 2 L, ids uniform over the vocabulary.
  Item make_item(const Point& p, const Shared&, const ItemSpec& spec, const at::Device& device,
                 at::Generator& gen) const override {
    const ModelConfig c = decoder::model_config(p.text("model"));
    const std::int64_t l = p.integer("L");
    std::int64_t length = spec.length;
    if (length < 0) {
      length = spec.index == 0
                   ? l
                   : 1 + at::randint(2 * l, {1}, gen,
                                     at::TensorOptions().dtype(at::kLong).device(device))
                             .item<std::int64_t>();
    }
    const at::Tensor prompt =
        at::randint(c.vocab, {length}, gen, at::TensorOptions().dtype(at::kLong).device(device));
    return {{prompt}, length};
  }

  bool scores() const override { return true; }

  // A trainer's forward: each prompt followed by its continuation, all in one prefill step from an
  // empty cache (decoder::score), through the same op mix as serving.
  std::vector<Outputs> score(const Point& p, const Shared& shared,
                             const ScoreRequest& s) const override {
    const ModelConfig c = decoder::model_config(p.text("model"));
    const decoder::Weights w = unflatten(c, shared.tensors);
    const auto& items = s.request.items;
    if (s.continuations.size() != items.size())
      throw std::logic_error("decoder score: one continuation per item");
    std::vector<std::vector<std::int64_t>> sequences;
    std::vector<at::Tensor> embeddings;
    std::vector<std::int64_t> prompt_lengths;
    for (std::size_t j = 0; j < items.size(); ++j) {
      const at::Tensor prompt = items[j]->inputs.at(0).cpu().contiguous();
      const at::Tensor more = s.continuations[j].cpu().to(at::kLong).contiguous();
      std::vector<std::int64_t> tokens(prompt.data_ptr<std::int64_t>(),
                                       prompt.data_ptr<std::int64_t>() + prompt.numel());
      tokens.insert(tokens.end(), more.data_ptr<std::int64_t>(),
                    more.data_ptr<std::int64_t>() + more.numel());
      if (static_cast<std::int64_t>(tokens.size()) > w.rope_cos.size(0))
        throw Unsupported(
            fmt::format("a sequence of {} tokens is longer than this point's RoPE table allows",
                        tokens.size()));
      if (s.differentiable) {
        const at::Tensor ids = at::tensor(tokens, at::kLong).to(w.embed.device());
        embeddings.push_back(w.embed.index_select(0, ids).detach().requires_grad_(true));
      }
      prompt_lengths.push_back(prompt.numel());
      sequences.push_back(std::move(tokens));
    }
    std::vector<at::Tensor> scored;
    {
      const ComputeScope under_test;
      scored = decoder::score(c, w, decoder::op_mix(s.request.impl), sequences, embeddings);
    }
    std::vector<Outputs> out;
    for (std::size_t j = 0; j < items.size(); ++j) {
      Outputs o = {
          {"logprobs", scored[j].narrow(0, prompt_lengths[j] - 1, s.continuations[j].numel())}};
      if (s.differentiable) o.push_back({"embeddings", embeddings[j]});
      out.push_back(std::move(o));
    }
    return out;
  }

  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    const ModelConfig c = decoder::model_config(p.text("model"));
    const decoder::Weights w = unflatten(c, shared.tensors);
    const std::int64_t spread = p.integer("arrival_spread");
    std::vector<decoder::Request> requests;
    for (std::size_t j = 0; j < r.items.size(); ++j) {
      const at::Tensor prompt = r.items[j]->inputs.at(0).cpu().contiguous();
      if (prompt.numel() + p.integer("new_tokens") > w.rope_cos.size(0))
        throw Unsupported(
            fmt::format("a prompt of {} tokens is longer than this point's RoPE "
                        "table allows",
                        prompt.numel()));
      decoder::Request q;
      q.prompt.assign(prompt.data_ptr<std::int64_t>(),
                      prompt.data_ptr<std::int64_t>() + prompt.numel());
      // Alone at step 0; in a batch at a step fixed by the position (a fixed scatter over spread).
      q.arrival = r.items.size() == 1 ? 0 : static_cast<std::int64_t>(j * 7919 + 13) % (spread + 1);
      requests.push_back(std::move(q));
    }
    decoder::Schedule schedule;
    schedule.new_tokens = p.integer("new_tokens");
    schedule.chunk = r.chunk;
    std::vector<decoder::Served> served;
    {
      const ComputeScope under_test;
      served = decoder::serve(c, w, decoder::op_mix(r.impl), requests, schedule);
    }
    std::vector<Outputs> out;
    for (const auto& s : served)
      out.push_back(
          {{"tokens", s.tokens}, {"logprobs", s.logprobs}, {"prompt_logprobs", s.prompt_logprobs}});
    return out;
  }

 private:
  static std::string mix_description(const decoder::OpMix& m) {
    const auto from = [](decoder::Source s) {
      return s == decoder::Source::aten ? "ATen" : "samebits";
    };
    return fmt::format("linear from {}, RMSNorm from {}, attention from {}, log_softmax from {}",
                       from(m.linear), from(m.norm), from(m.attention), from(m.log_softmax));
  }
};

}  // namespace

std::unique_ptr<Op> make_decoder_op() {
  return std::make_unique<DecoderOp>();
}

}  // namespace samebits
