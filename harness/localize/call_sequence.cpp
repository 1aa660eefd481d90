// join_calls (call_sequence.h): the calls' ops one after another, renumbered, each region named
// after its call, and each call's window the next rows of the whole run's item.
#include "harness/localize/call_sequence.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace samebits::localize {

CallSequence join_calls(std::vector<RecordedCall> calls) {
  if (calls.empty()) throw std::invalid_argument("localize: a run of calls needs at least one");
  CallSequence out;
  out.joined.kernels_captured = true;
  std::int64_t rows = 0;
  for (auto& call : calls) {
    Recording& r = call.recording;
    if (r.map.length < 1)
      throw std::invalid_argument(
          fmt::format("localize: call {} holds no item rows (length {})", call.name, r.map.length));
    const auto shift = static_cast<std::int64_t>(out.joined.ops.size());
    Window w{call.name, out.joined.ops.size(), out.joined.ops.size() + r.ops.size(), rows,
             r.map.length};
    for (auto& op : r.ops) {
      op.ordinal += shift;
      if (op.parent >= 0) op.parent += shift;
      op.region = op.region.empty() ? call.name : call.name + "/" + op.region;
      out.joined.ops.push_back(std::move(op));
    }
    out.windows.push_back(std::move(w));
    rows += r.map.length;
    out.joined.wall_ms += r.wall_ms;
    out.joined.kernels_captured = out.joined.kernels_captured && r.kernels_captured;
    if (out.joined.kernels_note.empty()) out.joined.kernels_note = r.kernels_note;
  }
  out.joined.map = whole_run(rows);
  return out;
}

}  // namespace samebits::localize
