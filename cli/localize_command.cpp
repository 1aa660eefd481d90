// `samebits localize`: the first op where a model's bits for one item diverge between two runs
// (alone vs batch, a batch twice, whole vs chunked, prefill vs decode), as text, JSON and HTML.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/report_output.h"
#include "common/atomic_file.h"
#include "common/errors.h"
#include "harness/device_choice.h"
#include "harness/localize/decoder_localize.h"
#include "harness/localize/rerun_contract.h"
#include "harness/ops/decoder/model.h"

namespace samebits {
namespace {

struct LocalizeOptions {
  std::string rerun_contract;  // --rerun-contract, else beside --report or --html
  std::string model = "decoder:tiny";
  std::string compare = "alone_vs_batch";
  std::string step = "prefill";
  std::vector<std::string> samebits_ops;
  std::string report, html;
  bool no_follow = false, no_kernels = false;
  std::int64_t chunk = 0;
  CLI::Option* chunk_given = nullptr;
  localize::DecoderSetup setup;
};

// The decoder's size from --model ("decoder:tiny"), or a ContractError naming the accepted.
std::string decoder_size(const std::string& model) {
  std::vector<std::string> accepted;
  for (const auto& name : decoder::model_names()) {
    accepted.push_back("decoder:" + name);
    if (model == accepted.back()) return name;
  }
  throw ContractError(
      fmt::format("--model: unknown model \"{}\"; accepted: {}", model, fmt::join(accepted, ", ")));
}

// Where the first divergent op's contract goes: --rerun-contract, else first-divergence.json
// beside --report (or --html); empty where none of them is given.
std::string rerun_contract_path(const LocalizeOptions& o) {
  if (!o.rerun_contract.empty()) return o.rerun_contract;
  const std::string beside = o.report.empty() ? o.html : o.report;
  if (beside.empty()) return {};
  return (std::filesystem::path(beside).parent_path() / "first-divergence.json").string();
}

int run_localize(LocalizeOptions& o) {
  localize::DecoderSetup& s = o.setup;
  s.model = decoder_size(o.model);
  s.samebits_ops = o.samebits_ops;
  if (o.chunk_given->count() > 0) s.chunk = o.chunk;
  try {
    s.compare = localize::parse_compare(o.compare);
    s.step = localize::parse_step(o.step);
    localize::check_setup(s);
  } catch (const std::invalid_argument& e) {
    throw ContractError(e.what());
  }
  std::vector<OutputTarget> targets;
  if (!o.report.empty()) targets.push_back({"--report", o.report});
  if (!o.html.empty()) targets.push_back({"--html", o.html});
  const std::string rerun = rerun_contract_path(o);
  if (!rerun.empty()) targets.push_back({"--rerun-contract", rerun});
  check_output_targets(targets);
  s.capture_kernels = !o.no_kernels && choose_device(s.device).is_cuda();
  localize::Finding f = localize::localize_decoder(s, !o.no_follow);
  localize::attach_rerun(f, rerun);
  fmt::print("{}", localize::summary_text(f));
  if (!o.report.empty()) {
    write_file_atomically(o.report, Json(f).dump(2) + "\n");
    fmt::print("report: {}\n", o.report);
  }
  if (!o.html.empty()) {
    write_file_atomically(o.html, localize::finding_html(f));
    fmt::print("html: {}\n", o.html);
  }
  if (f.rerun && !f.rerun->file.empty()) fmt::print("rerun contract: {}\n", f.rerun->file);
  return 0;
}

}  // namespace

std::shared_ptr<int> setup_localize_command(CLI::App& app) {
  auto o = std::make_shared<LocalizeOptions>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "localize",
      "Find the first op where one item's bits diverge between two runs of a model (alone vs in a "
      "batch, the same batch twice, its prompt prefilled whole vs in chunks, or vs one token per "
      "decode step): every ATen op recorded, the runs' ops aligned, the item's rows compared "
      "bitwise (a chunk's against its rows of the whole); prints the op, both sides' shapes, "
      "strides, dtypes and kernels, its ULP histogram and the ops after it. Exit 0 whatever it "
      "finds");
  cmd->add_option("--model", o->model, "decoder:tiny (CPU/CI) or decoder:small (H100)")
      ->capture_default_str();
  cmd->add_option("--mix", o->setup.mix,
                  "the decoder's op mix: aten, samebits.attention, samebits.except_linear, "
                  "samebits")
      ->capture_default_str();
  cmd->add_option("--samebits", o->samebits_ops,
                  "op families to take from samebits on top of --mix: linear, rms_norm, "
                  "attention, log_softmax")
      ->delimiter(',');
  cmd->add_option("--compare", o->compare,
                  "alone_vs_batch, run_vs_run, chunked_vs_whole (the item's prompt in one forward "
                  "vs in chunks of --chunk tokens over the paged cache) or prefill_vs_decode (vs "
                  "one token per decode step)")
      ->capture_default_str();
  o->chunk_given =
      cmd->add_option("--chunk", o->chunk,
                      "chunked_vs_whole: prompt tokens per chunk, 1 to --length - 1 (default 7)");
  cmd->add_option("--step", o->step,
                  "prefill (every prompt at once) or decode (each prompt prefilled alone, then "
                  "one token per sequence in one step)")
      ->capture_default_str();
  cmd->add_option("--batch", o->setup.batch,
                  "sequences in the batched run (alone_vs_batch, run_vs_run)")
      ->capture_default_str();
  cmd->add_option("--item", o->setup.item,
                  "the item's place in the batch (alone_vs_batch, run_vs_run)")
      ->capture_default_str();
  cmd->add_option("--length", o->setup.length,
                  "the item's prompt tokens (the others draw 1 to 2 * length)")
      ->capture_default_str();
  cmd->add_option("--dtype", o->setup.dtype, "bfloat16 or float16")->capture_default_str();
  cmd->add_option("--device", o->setup.device, "auto, cpu or cuda")->capture_default_str();
  cmd->add_option("--seed", o->setup.seed, "weights, prompts and lengths")->capture_default_str();
  cmd->add_option("--plant", o->setup.planted_layer,
                  "the control: this layer's MLP norm output follows the batch (-1: none)")
      ->capture_default_str();
  cmd->add_flag("--no-follow", o->no_follow,
                "do not rerun with the diverging op family from samebits");
  cmd->add_flag("--no-kernels", o->no_kernels, "do not capture CUDA kernels (CUPTI)");
  cmd->add_option("--report", o->report, "write the finding as JSON (samebits.localize/1)");
  cmd->add_option("--html", o->html, "write the finding as a self-contained HTML page");
  cmd->add_option("--rerun-contract", o->rerun_contract,
                  "write the first divergent aten:: op as a contract that `samebits run` reruns "
                  "alone (default: first-divergence.json beside --report or --html)");
  cmd->callback([o, code] { *code = run_localize(*o); });
  return code;
}

}  // namespace samebits
