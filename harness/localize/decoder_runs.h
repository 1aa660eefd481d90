// The decoder's two runs a comparison names, under the recorder: alone and in a batch, one batch
// twice (one step each), or one prompt prefilled whole and in chunks or decode steps (calls).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/localize/divergence.h"
#include "harness/localize/op_recorder.h"
#include "harness/ops/decoder/op_mix.h"

namespace samebits::localize {

enum class Compare { alone_vs_batch, run_vs_run, chunked_vs_whole, prefill_vs_decode };
const std::vector<std::string>& compare_names();
// Throws std::invalid_argument naming the accepted comparisons.
Compare parse_compare(const std::string& name);
std::string to_string(Compare compare);
// Whether the comparison's run b is the item's prompt fed over several calls (chunks or steps).
bool in_calls(Compare compare);

// chunked_vs_whole's chunk where --chunk is not given: no divisor of the default length 24, and no
// dim of either model, so a chunk's rows are never ambiguous.
inline constexpr std::int64_t kDefaultChunk = 7;

// The step recorded: every prompt prefilled at once, or, after each prompt was prefilled alone,
// one decode step feeding each sequence one token (an engine's continuous batch).
enum class Step { prefill, decode };
const std::vector<std::string>& step_names();
Step parse_step(const std::string& name);  // throws std::invalid_argument naming the accepted
std::string to_string(Step step);

struct DecoderSetup {
  std::string model = "tiny";  // decoder::model_names()
  std::string mix = "aten";    // decoder::op_mixes()
  std::string dtype = "bfloat16";
  std::string device = "cpu";  // auto, cpu or cuda (harness/device_choice.h)
  Compare compare = Compare::alone_vs_batch;
  Step step = Step::prefill;
  std::int64_t batch = 8;  // sequences in the batched run
  std::int64_t item = 0;   // the item's place among them
  // The item's prompt tokens; the others draw 1 to 2 * length. 24: no dim of either model's
  // (powers of two, 2816, 32000), so no output has two dims the row map could take for its rows.
  std::int64_t length = 24;
  std::uint64_t seed = 0;           // weights, prompts and lengths
  std::int64_t planted_layer = -1;  // the planted control (decoder::OpMix::planted_layer)
  // Prompt tokens per call of run b, where given: chunked_vs_whole takes 1 to length - 1 (none
  // given: kDefaultChunk); no other comparison takes one (prefill_vs_decode's is 1).
  std::optional<std::int64_t> chunk;
  bool capture_kernels = false;
  // Op families taken from samebits on top of the mix (decoder::kOpFamilies): "linear", ...
  std::vector<std::string> samebits_ops;
};

// The mix a setup runs: its named mix with samebits_ops swapped in and the planted layer.
decoder::OpMix setup_mix(const DecoderSetup& s);

// The prompt tokens per call of run b (0 where b is one call).
std::int64_t chunk_of(const DecoderSetup& s);

// Checks every field before any work: std::invalid_argument naming the field and what it accepts.
void check_setup(const DecoderSetup& s);

struct DecoderRuns {
  // "alone" and "batch", "run1" and "run2", "whole" and "chunked", or "prefill" and "decode"
  std::string a_name, b_name;
  Recording a, b;               // b: its calls joined (call_sequence.h), where it made several
  std::vector<Window> windows;  // b's calls and the rows of a's each holds
  std::int64_t batch_tokens = 0;
  double plain_ms = 0;  // run b without the recorder (after one warm-up)
};

DecoderRuns record_decoder(const DecoderSetup& s);

}  // namespace samebits::localize
