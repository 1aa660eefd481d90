// samebits.localize's C++ side (localize_call.h): the recorder around run a's call and run b's
// calls, on the calling thread (its callbacks are thread-local) with the GIL held throughout.
#include "python/src/localize_call.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "common/atomic_file.h"
#include "common/errors.h"
#include "harness/localize/call_sequence.h"
#include "harness/localize/divergence.h"
#include "harness/localize/finding.h"
#include "harness/localize/op_recorder.h"
#include "harness/localize/rerun_contract.h"

namespace py = pybind11;

namespace samebits {
namespace {

// The context hook: the Python stack of the op's call, as samebits/localizing.py formats it.
// torch's bindings let go of the GIL before they dispatch, so the hook takes it back.
std::function<std::string()> stack_hook(const py::object& format_stack) {
  if (format_stack.is_none()) return {};
  return [format_stack] {
    const py::gil_scoped_acquire gil;
    return format_stack().cast<std::string>();
  };
}

localize::Recording recorded(const py::object& f, const localize::RowMap& map,
                             const LocalizeCall& call, const py::object& format_stack) {
  localize::RecorderOptions options{map, call.capture_kernels, stack_hook(format_stack)};
  return localize::record([&] { f(); }, std::move(options));
}

}  // namespace

std::string run_localize(const py::object& a, const std::vector<py::object>& b,
                         const py::object& format_stack, std::optional<double> plain_ms,
                         const LocalizeCall& call) {
  if (b.empty() || b.size() != call.b_maps.size() || (call.call_name.empty() && b.size() != 1))
    throw ContractError(fmt::format(
        "samebits.localize: {} calls of run b and {} row maps; accepted: as many of each, one "
        "without a call name",
        b.size(), call.b_maps.size()));
  localize::Finding f;
  try {
    f.subject = Json::parse(call.subject_json);
  } catch (const Json::exception& e) {
    throw ContractError(std::string("samebits.localize: subject is not JSON: ") + e.what());
  }
  f.a = {call.a_name, recorded(a, call.a_map, call, format_stack)};
  std::vector<localize::Window> windows;
  if (call.call_name.empty()) {
    f.b = {call.b_name, recorded(b.front(), call.b_maps.front(), call, format_stack)};
    windows = localize::one_call(f.a.recording, f.b.recording);
  } else {
    std::vector<localize::RecordedCall> calls;
    for (std::size_t j = 0; j < b.size(); ++j)
      calls.push_back({fmt::format("{}.{}", call.call_name, j),
                       recorded(b[j], call.b_maps[j], call, format_stack)});
    localize::CallSequence joined = localize::join_calls(std::move(calls));
    f.b = {call.b_name, std::move(joined.joined)};
    windows = std::move(joined.windows);
  }
  f.plain_ms = plain_ms;
  f.result = localize::localize(f.a.recording, f.b.recording, windows);
  localize::attach_rerun(f, call.rerun_contract);
  const std::string text = Json(f).dump(2) + "\n";
  if (!call.report.empty()) write_file_atomically(call.report, text);
  if (!call.html.empty()) write_file_atomically(call.html, localize::finding_html(f));
  return text;
}

}  // namespace samebits
