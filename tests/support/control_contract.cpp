// The negative-control contract: every check kind over the control op, with each violator expected
// to break its own check and keep the others, and a registry that holds the control ops.
#include "tests/support/control_contract.h"

#include <fmt/format.h>

#include "harness/pipeline.h"
#include "tests/support/control_op.h"

namespace samebits {
namespace {

// Sweeps per check, chosen so that each violator's condition holds in every case of its check:
// dense batches of more than one, positions after the first, non-trivial layouts (L=5 is not a
// multiple of 4), items shorter than the longest, chunked runs. The batch check keeps the item
// first, since any position dependence would show there too. The equivalence check draws
// inexact ("normal") inputs, where float32 and float64 accumulation part ways, and allows one ULP,
// which the reference violator stays within; the reference check uses exact inputs, where the
// float32 sums are exact too.
const char* const kControlChecks = R"({
  "name": "controls",
  "op": "control",
  "description": "negative controls: each violator breaks exactly one check kind",
  "sweep": {"L": [5], "rows": [3], "k": [3]},
  "checks": [
    {"kind": "determinism",
     "sweep": {"batch": [1, 3],
               "repeat": {"cpu": ["same_stream"], "cuda": ["same_stream", "second_stream"]}}},
    {"kind": "batch_invariance", "sweep": {"batch": [2, 5], "position": ["first"]}},
    {"kind": "position_invariance", "sweep": {"batch": [2, 5], "position": ["middle", "last"]}},
    {"kind": "layout_invariance",
     "sweep": {"batch": [1, 2], "layout": ["strided:3", "offset:1", "padded:4"]}},
    {"kind": "padding_invariance",
     "sweep": {"lengths": [[3, 5, 4]], "padding": ["right", "left", "packed"],
               "pad_fill": ["neutral", "canary"]}},
    {"kind": "chunking_invariance", "sweep": {"batch": [1, 2], "chunk": [1, 2]}},
    {"kind": "equivalence", "against": "invariant", "compare": {"mode": "ulp", "max_ulp": 1},
     "sweep": {"L": [64], "rows": [4], "generator": ["normal"]}},
    {"kind": "reference"}
  ]
})";

std::string expected_outcome(const std::string& impl, const std::string& kind) {
  for (const auto& v : control_violators()) {
    if (v.impl == impl && to_string(v.breaks) == kind) return "violated";
  }
  return "holds";
}

}  // namespace

OpRegistry control_registry() {
  OpRegistry registry;
  registry.add(make_control_op());
  ControlOpOptions narrow;
  narrow.name = "narrow_control";
  narrow.checks = {CheckKind::determinism, CheckKind::layout_invariance,
                   CheckKind::padding_invariance};
  narrow.layouts = {LayoutKind::strided};
  narrow.paddings = {PaddingMode::right};
  registry.add(make_control_op(narrow));
  return registry;
}

std::string control_contract_json() {
  Json contract = Json::parse(kControlChecks);
  Json impls = Json::array();
  for (const auto& impl : control_impl_names()) impls.push_back(impl);
  contract["implementations"] = impls;
  for (auto& check : contract["checks"]) {
    Json expect = Json::object();
    for (const auto& impl : control_impl_names()) {
      // The implementation an equivalence check compares against is not compared with itself.
      if (check.contains("against") && check["against"] == impl) continue;
      expect[impl] = expected_outcome(impl, check["kind"].get<std::string>());
    }
    check["expect"] = expect;
  }
  return contract.dump(2);
}

std::vector<CaseResult> run_control_cases(CheckKind kind, const std::string& impl,
                                          const std::string& device) {
  const OpRegistry registry = control_registry();
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(
      std::make_unique<Contract>(parse_contract(control_contract_json(), "tests/controls.json")));
  // The check of each kind is named after it (the contract gives no names).
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = device;
  request.capture = "off";
  request.selection.filter = fmt::format("controls/{}/{}/{}/", to_string(kind), impl, device);
  return run_pipeline(request).cases;
}

}  // namespace samebits
