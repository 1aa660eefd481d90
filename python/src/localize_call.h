// samebits.localize(model, ...) in C++: the model called twice under the op recorder
// (harness/localize), the two recordings compared, the finding as JSON and HTML.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "harness/localize/row_map.h"

namespace samebits {

struct LocalizeCall {
  localize::RowMap a_map, b_map;  // where the item's rows lie in each run
  std::string a_name, b_name;     // "alone" and "batch", or "run1" and "run2"
  std::string subject_json;       // what ran, as Python describes it (a JSON object)
  bool capture_kernels = false;   // CUDA: the kernels each op launched (CUPTI)
  std::string report, html;       // where to write the finding ("" for none)
};

// Calls a() and b() (Python callables taking no arguments) under the recorder on this thread, with
// the GIL held, compares their ops on the item's rows and returns the finding's JSON text; writes
// the report and the HTML where asked. format_stack() (or None) gives each op's Python stack;
// plain_ms is b's call without the recorder, timed by the caller. Must be called with the GIL held.
std::string run_localize(const pybind11::object& a, const pybind11::object& b,
                         const pybind11::object& format_stack, std::optional<double> plain_ms,
                         const LocalizeCall& call);

}  // namespace samebits
