// localize() (divergence.h): alignment, then per aligned op a bitwise comparison of the item's
// rows through the harness's compare_tensors, so its ULP histogram is the reports' own.
#include "harness/localize/divergence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "harness/diff.h"
#include "harness/kernel_capture.h"
#include "harness/localize/alignment.h"

namespace samebits::localize {
namespace {

bool same_map(const RowMap& x, const RowMap& y) {
  return x.tokens == y.tokens && x.offset == y.offset && x.length == y.length &&
         x.sequences == y.sequences && x.sequence == y.sequence && x.padded_rows == y.padded_rows;
}

// An op's place in the model, whatever call of a run it ran in: its region without the call's name.
std::string key(const OpRecord& op, const std::string& call) {
  std::string region = op.region;
  if (!call.empty() && region == call) region.clear();
  if (!call.empty() && region.rfind(call + "/", 0) == 0) region.erase(0, call.size() + 1);
  return fmt::format("{}|{}|{}", full_name(op), op.depth, region);
}

// a's item rows cut to a window: along the dim they run along, unless the window is all of them.
at::Tensor window_rows(const ItemRows& item, const Window& w) {
  if (!item.rows.defined() || item.dim < 0) return item.rows;
  if (w.offset == 0 && item.rows.size(item.dim) == w.length) return item.rows;
  if (w.offset + w.length > item.rows.size(item.dim)) return {};
  return item.rows.narrow(item.dim, w.offset, w.length);
}

struct OutputVerdict {
  OpStatus status = OpStatus::not_comparable;
  std::optional<DiffStats> diff;  // where the item's rows were compared
  std::string note;
};

// Where the runs' layouts differ, integer outputs are indices into the run (positions, sequence
// ids, gather maps) and differ by design; the values they select are compared where selected.
OutputVerdict compare_output(const OutputRecord& x, const OutputRecord& y, const Window& w,
                             bool digests_apply) {
  const at::Tensor ra = window_rows(x.item, w), &rb = y.item.rows;
  if (!digests_apply && ra.defined() && !at::isFloatingType(ra.scalar_type()))
    return {OpStatus::not_comparable, std::nullopt, "integer: indices into the run"};
  if (ra.defined() && rb.defined() && same_rows_shape(ra, rb)) {
    DiffStats d = compare_tensors(ra.reshape(rb.sizes()), rb, Comparison{});
    const OpStatus s = d.mismatched == 0 ? OpStatus::equal : OpStatus::differs;
    return {s, std::move(d), {}};
  }
  if (digests_apply && x.meta.shape == y.meta.shape && x.meta.dtype == y.meta.dtype &&
      !x.digest.empty() && !y.digest.empty()) {
    if (x.digest == y.digest) return {OpStatus::equal, std::nullopt, {}};
    return {OpStatus::differs, std::nullopt, "whole-tensor digests differ"};
  }
  if (!x.item.rows.defined())
    return {OpStatus::not_comparable, std::nullopt, "a: " + x.item.not_kept};
  if (!ra.defined())
    return {OpStatus::not_comparable, std::nullopt, "a: fewer rows than the window"};
  if (!rb.defined()) return {OpStatus::not_comparable, std::nullopt, "b: " + y.item.not_kept};
  return {OpStatus::not_comparable, std::nullopt,
          fmt::format("item rows [{}] {} vs [{}] {}", fmt::join(ra.sizes(), ", "),
                      c10::toString(ra.scalar_type()), fmt::join(rb.sizes(), ", "),
                      c10::toString(rb.scalar_type()))};
}

// One aligned pair's outputs compared into c, the first divergence and the counts into out.
void compare_op(const OpRecord& x, const OpRecord& y, const Window& w, bool digests_apply,
                OpComparison& c, Localization& out) {
  const std::size_t outputs = std::min(x.outputs.size(), y.outputs.size());
  if (x.outputs.size() != y.outputs.size())
    c.note = fmt::format("{} outputs vs {}", x.outputs.size(), y.outputs.size());
  bool any_equal = false, ulp_known = true;
  for (std::size_t k = 0; k < outputs; ++k) {
    OutputVerdict v = compare_output(x.outputs[k], y.outputs[k], w, digests_apply);
    if (v.status == OpStatus::equal) any_equal = true;
    if (v.status == OpStatus::not_comparable && c.note.empty()) c.note = v.note;
    if (v.diff) c.compared += v.diff->numel;
    if (v.status != OpStatus::differs) continue;
    if (c.status != OpStatus::differs) c.note = v.note;
    c.status = OpStatus::differs;
    if (!v.diff || !v.diff->max_ulp) ulp_known = false;
    if (v.diff) {
      c.mismatched += v.diff->mismatched;
      if (v.diff->max_ulp) c.max_ulp = std::max(c.max_ulp.value_or(0), *v.diff->max_ulp);
    }
    if (!out.first) {
      out.first = out.ops.size();
      out.first_output = k;
      if (v.diff) out.first_diff = std::move(*v.diff);
    }
  }
  if (c.status == OpStatus::differs && !ulp_known) c.max_ulp.reset();
  if (c.status != OpStatus::differs) {
    c.status = any_equal ? OpStatus::equal : OpStatus::not_comparable;
    if (any_equal) c.note.clear();
  }
  ++(c.status == OpStatus::differs ? out.differs
     : c.status == OpStatus::equal ? out.equal
                                   : out.not_comparable);
  out.ops.push_back(std::move(c));
}

}  // namespace

std::string to_string(OpStatus status) {
  switch (status) {
    case OpStatus::equal: return "equal";
    case OpStatus::differs: return "differs";
    case OpStatus::not_comparable: return "not_comparable";
    case OpStatus::unmatched: return "unmatched";
  }
  return "?";
}

std::vector<Window> one_call(const Recording& a, const Recording& b) {
  return {Window{{}, 0, b.ops.size(), 0, a.map.length}};
}

Localization localize(const Recording& a, const Recording& b) {
  return localize(a, b, one_call(a, b));
}

Localization localize(const Recording& a, const Recording& b, const std::vector<Window>& windows) {
  // The ops the callables called themselves; their nested calls come with them (calls()).
  std::vector<std::size_t> ta;
  std::vector<std::string> ka;
  for (std::size_t i = 0; i < a.ops.size(); ++i)
    if (a.ops[i].depth == 0) ta.push_back(i), ka.push_back(key(a.ops[i], {}));
  const bool digests_apply = windows.size() == 1 && same_map(a.map, b.map);
  Localization out;
  for (const Window& w : windows) {
    if (w.end > b.ops.size() || w.begin > w.end)
      throw std::logic_error(
          fmt::format("localize: window [{}, {}) of b's {} ops", w.begin, w.end, b.ops.size()));
    std::vector<std::size_t> tb;
    std::vector<std::string> kb;
    for (std::size_t i = w.begin; i < w.end; ++i)
      if (b.ops[i].depth == 0) tb.push_back(i), kb.push_back(key(b.ops[i], w.call));
    for (const auto& aligned : align(ka, kb)) {
      OpComparison c;
      if (aligned.a) c.a = ta[*aligned.a];
      if (aligned.b) c.b = tb[*aligned.b];
      if (!c.a || !c.b) {
        c.status = OpStatus::unmatched;
        ++(c.a ? out.unmatched_a : out.unmatched_b);
        out.ops.push_back(std::move(c));
        continue;
      }
      compare_op(a.ops[*c.a], b.ops[*c.b], w, digests_apply, c, out);
    }
  }
  return out;
}

std::vector<std::size_t> calls(const Recording& r, std::size_t op) {
  // In completion order an op's calls are the ops just before it that reach it through parents.
  std::vector<std::size_t> out;
  const auto target = static_cast<std::int64_t>(op);
  for (std::size_t i = op; i-- > 0;) {
    std::int64_t p = r.ops[i].parent;
    while (p >= 0 && p < target) p = r.ops[static_cast<std::size_t>(p)].parent;
    if (p != target) break;
    out.insert(out.begin(), i);
  }
  return out;
}

std::vector<KernelLaunch> kernels_of(const Recording& r, std::size_t op) {
  std::vector<KernelLaunch> out;
  for (const auto i : calls(r, op)) {
    auto more = r.ops[i].kernels;
    merge_launches(out, std::move(more));
  }
  auto own = r.ops.at(op).kernels;
  merge_launches(out, std::move(own));
  return out;
}

}  // namespace samebits::localize
