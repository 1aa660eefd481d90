// samebits.localize(model, ...) in C++: the model's two runs (run b one call or several) under the
// op recorder (harness/localize), the recordings compared, the finding as JSON and HTML.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/localize/row_map.h"

namespace samebits {

struct LocalizeCall {
  localize::RowMap a_map;                // where the item's rows lie in run a
  std::vector<localize::RowMap> b_maps;  // in each call of run b
  // Empty: run b is one call. Else b's calls hold a's item rows one after another (a prefill in
  // chunks, a decode one token per step), each named "call_name.j" (call_sequence.h).
  std::string call_name;
  std::string a_name, b_name;    // "alone" and "batch", "run1" and "run2", "whole" and "chunked"
  std::string subject_json;      // what ran, as Python describes it (a JSON object)
  bool capture_kernels = false;  // CUDA: the kernels each op launched (CUPTI)
  std::string report, html;      // where to write the finding ("" for none)
  // Where the first divergent aten:: op goes as a contract that `samebits run` reruns alone
  // (harness/localize/rerun_contract.h; "" writes none, the finding still says what it would be).
  std::string rerun_contract;
};

// Calls a() and each of b (Python callables taking no arguments, one per map of b_maps) under the
// recorder on this thread, with the GIL held, compares their ops on the item's rows and returns
// the finding's JSON text; writes the report and the HTML where asked. format_stack() (or None)
// gives each op's Python stack; plain_ms is b's calls without the recorder, timed by the caller.
// Must be called with the GIL held. Throws ContractError where b and b_maps differ in length.
std::string run_localize(const pybind11::object& a, const std::vector<pybind11::object>& b,
                         const pybind11::object& format_stack, std::optional<double> plain_ms,
                         const LocalizeCall& call);

}  // namespace samebits
