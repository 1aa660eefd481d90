// The decoder served like an engine (harness/ops/decoder): each op mix's tokens/s against all-ATen
// on one schedule, and how many of 32 completions change between alone and packed, per batch size.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "bench/bench_rows.h"
#include "harness/ops/decoder/engine.h"

namespace samebits::bench {
namespace {

using namespace samebits::decoder;

constexpr std::int64_t kPrompts = 32, kNewTokens = 32, kChunk = 256, kSpread = 8;

// 32 prompts of 20 to 600 tokens (a fixed draw), arriving over the first kSpread steps.
std::vector<Request> schedule_of(std::int64_t vocab) {
  at::Generator gen = at::detail::createCPUGenerator(2026);
  std::vector<Request> out;
  for (std::int64_t i = 0; i < kPrompts; ++i) {
    const std::int64_t length = 20 + at::randint(581, {1}, gen).item<std::int64_t>();
    const at::Tensor ids = at::randint(vocab, {length}, gen);
    Request r;
    r.prompt.assign(ids.data_ptr<std::int64_t>(), ids.data_ptr<std::int64_t>() + length);
    r.arrival = i % kSpread;
    out.push_back(std::move(r));
  }
  return out;
}

bool same(const Served& a, const Served& b) {
  return at::equal(a.tokens, b.tokens);
}
bool same_bits(const Served& a, const Served& b) {
  return at::equal(a.tokens, b.tokens) && at::equal(a.logprobs, b.logprobs);
}

// Wall time of serving every request once (serve reads tokens back each step, so it has synced).
double serve_seconds(const ModelConfig& c, const Weights& w, const OpMix& mix,
                     const std::vector<Request>& requests, const Schedule& s, int reps) {
  serve(c, w, mix, requests, s);  // warm-up: cuBLAS handles, plans, the caching allocator
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    serve(c, w, mix, requests, s);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

std::vector<Row> decoder_rows(int reps) {
  const ModelConfig c = model_config("small");
  at::Generator gen = at::detail::createCPUGenerator(7);
  // Drawn on the host (a CPU generator), then moved: the same weights as a CPU run would draw.
  Weights w = make_weights(c, at::kBFloat16, at::kCPU, gen, 1024);
  const auto to_gpu = [](at::Tensor& t) { t = t.cuda(); };
  for (at::Tensor* t : {&w.embed, &w.final_norm, &w.lm_head, &w.rope_cos, &w.rope_sin}) to_gpu(*t);
  for (auto& L : w.layers) {
    for (at::Tensor* t :
         {&L.attn_norm, &L.wq, &L.wk, &L.wv, &L.wo, &L.mlp_norm, &L.w_gate, &L.w_up, &L.w_down})
      to_gpu(*t);
  }
  const std::vector<Request> requests = schedule_of(c.vocab);
  Schedule s;
  s.new_tokens = kNewTokens;
  s.chunk = kChunk;
  std::int64_t generated = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) generated += kNewTokens;
  const int serve_reps = std::max(1, std::min(reps, 3));

  std::vector<Row> rows;
  const OpMix& aten = op_mix("aten");
  const double aten_s = serve_seconds(c, w, aten, requests, s, serve_reps);
  for (const OpMix& mix : op_mixes()) {
    // Invariance: each prompt alone (arriving at step 0) vs packed in groups of 8 and of 32.
    std::vector<Served> alone;
    for (const auto& r : requests) alone.push_back(serve(c, w, mix, {{r.prompt, 0}}, s).at(0));
    std::string check;
    bool all_same = true;
    for (const std::int64_t group : {8, 32}) {
      int changed = 0, bits_changed = 0;
      for (std::int64_t g = 0; g < kPrompts; g += group) {
        const std::vector<Request> part(requests.begin() + g, requests.begin() + g + group);
        const auto packed = serve(c, w, mix, part, s);
        for (std::int64_t i = 0; i < group; ++i) {
          changed += !same(alone[g + i], packed[i]);
          bits_changed += !same_bits(alone[g + i], packed[i]);
        }
      }
      all_same = all_same && bits_changed == 0;
      check += fmt::format("{}batch {}: {} of 32 completions differ, {} differ in bits",
                           check.empty() ? "" : "; ", group, changed, bits_changed);
    }
    const double mix_s =
        mix.name == "aten" ? aten_s : serve_seconds(c, w, mix, requests, s, serve_reps);
    Row row("decoder", fmt::format("{} small bf16, 32 prompts 20-600, chunk {}", mix.name, kChunk),
            "all-ATen decoder");
    row.baseline_us = aten_s * 1e6;
    row.samebits_us = mix_s * 1e6;
    // Only the all-samebits mix promises invariance; the others' counts are observations.
    row.checked = mix.name != "samebits" || all_same;
    row.check = fmt::format("{}; {:.0f} tokens/s", check, generated / mix_s);
    fmt::print(stderr, "decoder bench: {}: {:.2f} s vs all-ATen {:.2f} s; {}\n", mix.name, mix_s,
               aten_s, row.check);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace samebits::bench
