// Builds the rendering tests' report the way `samebits run` does (one pipeline), from shipped
// contracts shrunk to test scale, so renderers are tested on real params, diffs and outcomes.
#include "tests/reports/render_fixture.h"

#include <algorithm>

#include "contracts/embedded_suite.h"
#include "harness/ops/ops.h"
#include "reports/model/outcome.h"
#include "tests/support/miniature.h"
#include "tests/support/planted_flaw.h"
#include "tests/support/run_contracts.h"

namespace samebits {
namespace {

// The miniature clamps every chunk size to 4: sdpa's chunked prefill gets two again (2 and 4), so
// its heatmap has a chunk axis to spread over.
void two_chunk_sizes(Contract& c) {
  for (auto& check : c.checks) {
    for (auto& axis : check.sweep.axes) {
      if (axis.name != "chunk" || check.name != "chunked_prefill") continue;
      for (auto& [device, values] : axis.values_by_device) values = {Json(2), Json(4)};
    }
  }
}

std::unique_ptr<Contract> shipped_miniature(const std::string& name) {
  for (const auto& file : embedded_contracts()) {
    Contract c = parse_contract(file.text, "embedded:" + file.name);
    if (c.name != name) continue;
    Contract small = miniature(c);
    two_chunk_sizes(small);
    return std::make_unique<Contract>(std::move(small));
  }
  throw std::invalid_argument("no shipped contract " + name);
}

// One case that held becomes an error, as a CUDA failure would leave it; the gate judges again.
void plant_error(Report& report) {
  const auto held = std::find_if(report.cases.begin(), report.cases.end(), [](const auto& c) {
    return c.contract == "sdpa" && c.verdict == Verdict::holds;
  });
  if (held == report.cases.end()) return;
  held->verdict = Verdict::error;
  held->reason = "planted by the render fixture: CUDA error: an illegal memory access";
  held->outputs.clear();
  PlannedCounts planned;
  std::map<std::string, Expectation> nearest;
  for (const auto& g : report.checks) {
    const std::string key = planned_key(g.contract, g.check, g.impl, g.device);
    planned[key] = g.planned;
    nearest[key] = g.nearest_observed;
  }
  const double duration = report.summary.duration_s;
  report.checks = judge_checks(report.cases, planned);
  for (auto& g : report.checks)
    g.nearest_observed = nearest[planned_key(g.contract, g.check, g.impl, g.device)];
  report.summary = summarize(report.cases, report.checks);
  report.summary.duration_s = duration;
}

}  // namespace

Report render_fixture_report() {
  std::vector<std::unique_ptr<Contract>> contracts;
  for (const char* name : {"sum", "softmax", "sdpa"}) contracts.push_back(shipped_miniature(name));
  OpRegistry registry;
  for (auto& op : make_builtin_ops()) {
    const std::string name = op->name();
    if (name == "sum") op = make_planted_flaw(std::move(op), CheckKind::batch_invariance);
    if (name == "sdpa") op = make_planted_flaw(std::move(op), CheckKind::chunking_invariance);
    registry.add(std::move(op));
  }
  Report report = run_contracts_report(contracts, registry, "cpu");
  plant_error(report);
  return report;
}

Report with_hostile_names(Report report) {
  const std::string impl = report.checks.empty() ? "" : report.checks.front().impl;
  const auto rename = [&](std::string& contract, std::string* check_impl) {
    if (contract != "sum") return false;
    contract = kHostileContract;
    if (check_impl && *check_impl == impl) *check_impl = kHostileImpl;
    return true;
  };
  for (auto& c : report.contracts) rename(c.name, nullptr);
  for (auto& g : report.checks) rename(g.contract, &g.impl);
  bool param_set = false;
  for (auto& c : report.cases) {
    if (rename(c.contract, &c.impl)) c.id = std::string(kHostileContract) + "/" + c.id;
    if (!param_set && c.contract == kHostileContract && c.verdict == Verdict::violated) {
      c.params["generator"] = kHostileParam;
      param_set = true;
    }
  }
  return report;
}

}  // namespace samebits
