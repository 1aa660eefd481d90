// The decoder's two runs a comparison names, each under the recorder: the item alone and inside a
// batch of others (alone_vs_batch), or the same batch twice (run_vs_run); one forward step each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/localize/op_recorder.h"
#include "harness/ops/decoder/op_mix.h"

namespace samebits::localize {

enum class Compare { alone_vs_batch, run_vs_run };
const std::vector<std::string>& compare_names();
// Throws std::invalid_argument naming the accepted comparisons (and those not built yet).
Compare parse_compare(const std::string& name);
std::string to_string(Compare compare);

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
  bool capture_kernels = false;
  // Op families taken from samebits on top of the mix (decoder::kOpFamilies): "linear", ...
  std::vector<std::string> samebits_ops;
};

// The mix a setup runs: its named mix with samebits_ops swapped in and the planted layer.
decoder::OpMix setup_mix(const DecoderSetup& s);

// Checks every field before any work: std::invalid_argument naming the field and what it accepts.
void check_setup(const DecoderSetup& s);

struct DecoderRuns {
  std::string a_name, b_name;  // "alone" and "batch", or "run1" and "run2"
  Recording a, b;
  std::int64_t batch_tokens = 0;
  double plain_ms = 0;  // the batched forward without the recorder (after one warm-up)
};

DecoderRuns record_decoder(const DecoderSetup& s);

}  // namespace samebits::localize
