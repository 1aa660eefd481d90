// samebits.check() in C++: one contract, one op (the schema op over a Python callee) in a registry
// of its own, run through run_engine as samebits.run runs contracts; each check that did not come
// out as promised told with the renderers' own words (headline, the first deciding case's diff).
#include "python/src/check_call.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>

#include <memory>
#include <utility>

#include "common/errors.h"
#include "contracts/contract.h"
#include "harness/op_registry.h"
#include "harness/ops/schema_op.h"
#include "python/src/python_callee.h"
#include "reports/model/report_reader.h"
#include "reports/render/case_detail.h"
#include "reports/render/check_headline.h"

namespace py = pybind11;

namespace samebits {
namespace {

// The first case that decided the check's outcome: a violated one, else one that did not run.
const CaseResult* deciding_case(const std::vector<const CaseResult*>& cases) {
  for (const CaseResult* c : cases) {
    if (c->verdict == Verdict::violated) return c;
  }
  for (const CaseResult* c : cases) {
    if (did_not_run(c->verdict) || c->verdict == Verdict::skipped) return c;
  }
  return nullptr;
}

// The case as `samebits show` prints it, less its rerun line: the CLI cannot rerun a callable.
std::string detail_of(const CaseResult& c) {
  std::string text = case_detail_text(c, "", false);
  const auto rerun = text.rfind("  rerun: ");
  return rerun == std::string::npos ? text : text.substr(0, rerun);
}

std::vector<CheckFailure> failures_of(const std::string& report_json, const std::string& source) {
  const Report report = report_from_json(parse_json_document(report_json, source), source);
  const CaseIndex index(report);
  std::vector<CheckFailure> out;
  for (const CheckResult& check : report.checks) {
    if (!fails_gate(check.outcome) && check.outcome != Outcome::errored) continue;
    const auto& cases = index.of(check);
    const CaseResult* first = deciding_case(cases);
    out.push_back({check.check, to_string(check.kind), to_string(check.outcome),
                   check_headline(check, cases), first ? detail_of(*first) : std::string()});
  }
  return out;
}

}  // namespace

CheckOutcome run_check(const py::object& fn, const CheckCall& call) {
  const std::string source = call.run.contracts.empty() ? "samebits.check" : call.run.contracts[0];
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(call.contract_json, source)));
  std::shared_ptr<PythonCallee> callee;
  try {
    callee = std::make_shared<PythonCallee>(fn, torch::jit::parseSchema(call.schema));
  } catch (const c10::Error& e) {
    throw ContractError(fmt::format("{}: the callable's schema \"{}\" does not parse: {}", source,
                                    call.schema, e.what_without_backtrace()));
  }
  OpRegistry ops;
  ops.add(make_schema_op(*contracts.front(), callee->schema(), callee));
  CheckOutcome out;
  {
    const py::gil_scoped_release released;
    out.result = run_engine(call.run, contracts, ops);
  }
  out.failures = failures_of(out.result.report_json, source);
  return out;
}

}  // namespace samebits
