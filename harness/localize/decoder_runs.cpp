// The decoder's runs for localize (decoder_runs.h): seeded weights and prompts, a forward per run
// or per call over a fresh paged cache, every row's log-probabilities, the item's rows mapped.
#include "harness/localize/decoder_runs.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "cases/dtypes.h"
#include "cases/seeds.h"
#include "harness/device_choice.h"
#include "harness/localize/call_sequence.h"
#include "harness/ops/decoder/model.h"

namespace samebits::localize {
namespace {

using decoder::ModelConfig;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// A run's recorded step and the cache it reads: with prefill, one step over the prompts packed in
// order, each on pages of its own; with decode, each prompt first prefilled alone (unrecorded, so
// the item's keys are the same bits in both runs), then one step feeding each a token after it.
struct Prepared {
  decoder::KvCache cache;
  decoder::StepBatch step;
};

Prepared prepare(const ModelConfig& c, const decoder::Weights& w, const decoder::OpMix& mix,
                 const std::vector<std::vector<std::int64_t>>& prompts, Step mode) {
  Prepared p;
  p.step.q_offsets.push_back(0);
  const std::int64_t extra = mode == Step::decode ? 1 : 0;
  std::int32_t next_page = 0;
  for (const auto& prompt : prompts) {
    const auto n = static_cast<std::int64_t>(prompt.size());
    std::vector<std::int32_t> pages;
    for (std::int64_t k = 0; k < ceil_div(n + extra, c.page_size); ++k)
      pages.push_back(next_page++);
    if (mode == Step::prefill) {
      p.step.tokens.insert(p.step.tokens.end(), prompt.begin(), prompt.end());
      p.step.cache_lengths.push_back(0);
    } else {
      p.step.tokens.push_back(prompt.front());  // any token will do: the same in both runs
      p.step.cache_lengths.push_back(n);
    }
    p.step.q_offsets.push_back(static_cast<std::int64_t>(p.step.tokens.size()));
    p.step.pages.push_back(std::move(pages));
  }
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(p.step.tokens.size()); ++r)
    p.step.logit_rows.push_back(r);
  p.cache = decoder::make_cache(c, next_page, w.embed.scalar_type(), w.embed.device());
  for (std::size_t b = 0; mode == Step::decode && b < prompts.size(); ++b) {
    const auto n = static_cast<std::int64_t>(prompts[b].size());
    decoder::StepBatch alone;
    alone.tokens = prompts[b];
    alone.q_offsets = {0, n};
    alone.cache_lengths = {0};
    alone.pages = {p.step.pages[b]};
    alone.logit_rows = {n - 1};
    decoder::forward(c, w, mix, p.cache, alone);
  }
  return p;
}

void sync(const at::Device& device) {
  if (device.is_cuda()) cudaDeviceSynchronize();
}

// The milliseconds f takes, between device syncs.
template <typename F>
double timed_ms(const at::Device& device, F&& f) {
  sync(device);
  const auto begin = std::chrono::steady_clock::now();
  f();
  sync(device);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
      .count();
}

// The prompt fed `chunk` tokens per forward over a fresh paged cache, its pages taken as it grows
// (as decoder::serve takes them), every row's log-probabilities: with chunk 1 the decode step an
// engine runs, teacher-forced. With options, each forward is recorded as a call of its own, its
// map its own rows, named "name.j".
std::vector<RecordedCall> feed_prompt(const ModelConfig& c, const decoder::Weights& w,
                                      const decoder::OpMix& mix,
                                      const std::vector<std::int64_t>& prompt, std::int64_t chunk,
                                      const std::string& name, const RecorderOptions* options) {
  const auto n = static_cast<std::int64_t>(prompt.size());
  decoder::KvCache cache =
      decoder::make_cache(c, ceil_div(n, c.page_size), w.embed.scalar_type(), w.embed.device());
  std::vector<RecordedCall> out;
  for (std::int64_t from = 0; from < n; from += chunk) {
    const std::int64_t rows = std::min(chunk, n - from);
    decoder::StepBatch step;
    step.tokens.assign(prompt.begin() + from, prompt.begin() + from + rows);
    step.q_offsets = {0, rows};
    step.cache_lengths = {from};
    step.pages.emplace_back();
    for (std::int32_t k = 0; k < ceil_div(from + rows, c.page_size); ++k)
      step.pages.back().push_back(k);
    for (std::int64_t r = 0; r < rows; ++r) step.logit_rows.push_back(r);
    const auto forward = [&] { decoder::forward(c, w, mix, cache, step); };
    if (options == nullptr) {
      forward();
      continue;
    }
    RecorderOptions own = *options;
    own.map = whole_run(rows);
    out.push_back({fmt::format("{}.{}", name, from / chunk), record(forward, std::move(own))});
  }
  return out;
}

// chunked_vs_whole and prefill_vs_decode: a, the prompt prefilled in one forward; b, the same
// prompt in chunks (or one token per decode step), each a call standing for its rows of a.
DecoderRuns record_calls(const DecoderSetup& s, const ModelConfig& c, const decoder::Weights& w,
                         const decoder::OpMix& mix, const std::vector<std::int64_t>& prompt,
                         std::int64_t chunk) {
  const bool decode = s.compare == Compare::prefill_vs_decode;
  const std::string call = decode ? "step" : "chunk";
  const auto n = static_cast<std::int64_t>(prompt.size());
  const at::Device device = w.embed.device();
  DecoderRuns out;
  out.a_name = decode ? "prefill" : "whole";
  out.b_name = decode ? "decode" : "chunked";
  out.batch_tokens = n;
  feed_prompt(c, w, mix, prompt, chunk, call, nullptr);  // warm-up
  out.plain_ms = timed_ms(device, [&] { feed_prompt(c, w, mix, prompt, chunk, call, nullptr); });
  const RecorderOptions options{whole_run(n), s.capture_kernels, {}};
  out.a = std::move(feed_prompt(c, w, mix, prompt, n, "whole", &options).front().recording);
  CallSequence b = join_calls(feed_prompt(c, w, mix, prompt, chunk, call, &options));
  out.b = std::move(b.joined);
  out.windows = std::move(b.windows);
  return out;
}

// --chunk and --step against the comparison: run b's calls need a prompt to split, and a prefill.
void check_calls(const DecoderSetup& s) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (s.chunk && s.compare != Compare::chunked_vs_whole)
    fail(fmt::format("--chunk: {}; accepted: only with --compare chunked_vs_whole ({} feeds {})",
                     *s.chunk, to_string(s.compare),
                     s.compare == Compare::prefill_vs_decode ? "one token per decode step"
                                                             : "every prompt in one step"));
  if (!in_calls(s.compare)) return;
  if (s.length < 2)
    fail(
        fmt::format("--length: {}; accepted: at least 2 tokens for {} (a prompt in two calls or "
                    "more)",
                    s.length, to_string(s.compare)));
  const std::int64_t chunk = chunk_of(s);
  if (chunk < 1 || chunk >= s.length)
    fail(
        fmt::format("--chunk: {}{}; accepted: 1 to {} (fewer than --length {}, so that the prompt "
                    "takes at least two chunks)",
                    chunk, s.chunk ? "" : " (the default)", s.length - 1, s.length));
  if (s.step != Step::prefill)
    fail(fmt::format("--step: {}; accepted: prefill for {} (its run b is the prompt's own calls)",
                     to_string(s.step), to_string(s.compare)));
}

}  // namespace

const std::vector<std::string>& step_names() {
  static const std::vector<std::string> names = {"prefill", "decode"};
  return names;
}

Step parse_step(const std::string& name) {
  if (name == "prefill") return Step::prefill;
  if (name == "decode") return Step::decode;
  throw std::invalid_argument(
      fmt::format("--step: unknown \"{}\"; accepted: {}", name, fmt::join(step_names(), ", ")));
}

std::string to_string(Step step) {
  return step_names().at(static_cast<std::size_t>(step));
}

const std::vector<std::string>& compare_names() {
  static const std::vector<std::string> names = {"alone_vs_batch", "run_vs_run", "chunked_vs_whole",
                                                 "prefill_vs_decode"};
  return names;
}

Compare parse_compare(const std::string& name) {
  const auto& names = compare_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument(
        fmt::format("--compare: unknown \"{}\"; accepted: {}", name, fmt::join(names, ", ")));
  return static_cast<Compare>(it - names.begin());
}

std::string to_string(Compare compare) {
  return compare_names().at(static_cast<std::size_t>(compare));
}

bool in_calls(Compare compare) {
  return compare == Compare::chunked_vs_whole || compare == Compare::prefill_vs_decode;
}

std::int64_t chunk_of(const DecoderSetup& s) {
  if (s.compare == Compare::prefill_vs_decode) return 1;
  if (s.compare == Compare::chunked_vs_whole) return s.chunk.value_or(kDefaultChunk);
  return 0;
}

decoder::OpMix setup_mix(const DecoderSetup& s) {
  decoder::OpMix mix = decoder::op_mix(s.mix);
  for (const auto& family : s.samebits_ops) {
    if (family == "linear")
      mix.linear = decoder::Source::samebits;
    else if (family == "rms_norm" || family == "add_rms_norm")
      mix.norm = decoder::Source::samebits;
    else if (family == "attention")
      mix.attention = decoder::Source::samebits;
    else if (family == "log_softmax")
      mix.log_softmax = decoder::Source::samebits;
    else
      throw std::invalid_argument(fmt::format("--samebits: unknown op family \"{}\"; accepted: {}",
                                              family, fmt::join(decoder::kOpFamilies, ", ")));
    mix.name += "+samebits." + family;
  }
  mix.planted_layer = s.planted_layer;
  return mix;
}

void check_setup(const DecoderSetup& s) {
  // Each field's own check, its message prefixed with the flag that sets it.
  const auto field = [](const char* flag, const auto& check) {
    try {
      check();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", flag, e.what()));
    }
  };
  field("--model", [&] { decoder::model_config(s.model); });
  field("--mix", [&] { decoder::op_mix(s.mix); });
  setup_mix(s);                                       // --samebits names its flag
  if (s.dtype != "bfloat16" && s.dtype != "float16")  // the decoder op's dtype axis
    throw std::invalid_argument(
        fmt::format("--dtype: \"{}\"; accepted: bfloat16, float16 (the decoder's)", s.dtype));
  if (s.device != "auto" && s.device != "cpu" && s.device != "cuda")
    throw std::invalid_argument(
        fmt::format("--device: unknown \"{}\"; accepted: auto, cpu, cuda", s.device));
  choose_device(s.device);  // a ContractError naming --device cuda where no GPU is visible
  const ModelConfig c = decoder::model_config(s.model);
  const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (s.batch < 1 || (s.compare == Compare::alone_vs_batch && s.batch < 2))
    fail(fmt::format("--batch: {} sequences; accepted: at least {} for {}", s.batch,
                     s.compare == Compare::alone_vs_batch ? 2 : 1, to_string(s.compare)));
  if (s.item < 0 || s.item >= s.batch)
    fail(fmt::format("--item: {}; accepted: 0 to {} (the item's place in the batch of {})", s.item,
                     s.batch - 1, s.batch));
  if (s.length < 1) fail(fmt::format("--length: {}; accepted: at least 1 token", s.length));
  check_calls(s);
  if (s.planted_layer < -1 || s.planted_layer >= c.layers)
    fail(fmt::format("--plant: layer {}; accepted: -1 (none) or 0 to {} ({} has {} layers)",
                     s.planted_layer, c.layers - 1, s.model, c.layers));
}

DecoderRuns record_decoder(const DecoderSetup& s) {
  check_setup(s);
  const ModelConfig c = decoder::model_config(s.model);
  const decoder::OpMix mix = setup_mix(s);
  const at::Device device = choose_device(s.device);
  const at::ScalarType dtype = parse_dtype(s.dtype);
  at::Generator gen = make_generator(device, s.seed);
  const decoder::Weights w = make_weights(c, dtype, device, gen, 2 * s.length + 2);

  // The prompts on the host, from a generator of their own: the same on every device. A run of
  // calls feeds the item's prompt alone.
  const std::int64_t batch = in_calls(s.compare) ? 1 : s.batch;
  const std::int64_t item = in_calls(s.compare) ? 0 : s.item;
  at::Generator host = make_generator(at::kCPU, s.seed + 1);
  std::vector<std::vector<std::int64_t>> prompts;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t n =
        b == item ? s.length : 1 + at::randint(2 * s.length, {1}, host).item<std::int64_t>();
    const at::Tensor t = at::randint(c.vocab, {n}, host, at::kLong);
    prompts.emplace_back(t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + n);
  }
  if (in_calls(s.compare)) return record_calls(s, c, w, mix, prompts.front(), chunk_of(s));

  // The item's rows in the batched step: its prompt (prefill) or its one token (decode).
  RowMap batch_map;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const auto n = s.step == Step::prefill
                       ? static_cast<std::int64_t>(prompts[static_cast<std::size_t>(b)].size())
                       : 1;
    if (b < s.item) batch_map.offset += n;
    batch_map.tokens += n;
    batch_map.padded_rows = std::max(batch_map.padded_rows, n);
  }
  batch_map.length = s.step == Step::prefill ? s.length : 1;
  batch_map.sequences = s.batch;
  batch_map.sequence = s.item;

  const std::vector<std::vector<std::int64_t>> alone = {prompts[static_cast<std::size_t>(s.item)]};
  const auto run = [&](const std::vector<std::vector<std::int64_t>>& which,
                       const RecorderOptions* options) {
    Prepared p = prepare(c, w, mix, which, s.step);
    if (options) return record([&] { decoder::forward(c, w, mix, p.cache, p.step); }, *options);
    decoder::forward(c, w, mix, p.cache, p.step);
    return Recording{};
  };
  DecoderRuns out;
  out.batch_tokens = batch_map.tokens;
  run(prompts, nullptr);  // warm-up: first-call costs land in no timing
  {
    Prepared p = prepare(c, w, mix, prompts, s.step);
    out.plain_ms = timed_ms(device, [&] { decoder::forward(c, w, mix, p.cache, p.step); });
  }
  const RecorderOptions batch_options{batch_map, s.capture_kernels, {}};
  if (s.compare == Compare::alone_vs_batch) {
    out.a_name = "alone";
    out.b_name = "batch";
    const RecorderOptions alone_options{whole_run(batch_map.length), s.capture_kernels, {}};
    out.a = run(alone, &alone_options);
  } else {
    out.a_name = "run1";
    out.b_name = "run2";
    out.a = run(prompts, &batch_options);
  }
  out.b = run(prompts, &batch_options);
  out.windows = one_call(out.a, out.b);
  return out;
}

}  // namespace samebits::localize
