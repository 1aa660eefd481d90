// The first divergent op as a contract (rerun_contract.h): each recorded argument placed by how
// its shape or value differs between the two runs, then the check its comparison stands for.
#include "harness/localize/rerun_contract.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cases/dtypes.h"
#include "common/atomic_file.h"

namespace samebits::localize {
namespace {

constexpr const char* kRows = "T";  // the axis of the item's rows

// Raised while describing the op: the reason a contract cannot be written.
struct Undescribable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Kind { batch, runs, chunks };

// What the comparison makes of the two runs' shapes.
struct Frame {
  Kind kind = Kind::batch;
  std::string check;
  std::int64_t tokens = 0;  // run_vs_run: the run's rows, which the token dim has on both sides
  // The token dim's extent on each side: alone_vs_batch the runs' rows, else as the first tensor
  // placed shows it; every tensor's the same.
  std::optional<std::pair<std::int64_t, std::int64_t>> rows;
  bool placed = false;  // some tensor has the token dim
};

Frame frame_of(const Finding& f) {
  const std::string compare = f.subject.value("compare", "");
  Frame fr;
  if (compare == "alone_vs_batch") {
    fr.check = "batch_invariance";
    fr.rows = std::make_pair(f.a.recording.map.tokens, f.b.recording.map.tokens);
  } else if (compare == "run_vs_run") {
    fr.kind = Kind::runs;
    fr.check = "determinism";
    fr.tokens = f.b.recording.map.tokens;
  } else if (compare == "chunked_vs_whole" || compare == "prefill_vs_decode") {
    fr.kind = Kind::chunks;
    fr.check = "chunking_invariance";
  } else {
    throw Undescribable(
        fmt::format("the comparison \"{}\" maps to no check kind; known: "
                    "alone_vs_batch, run_vs_run, chunked_vs_whole, "
                    "prefill_vs_decode",
                    compare));
  }
  return fr;
}

// The dim of the item's rows in a tensor of shape a on one side and b on the other, or none for
// a tensor every item shares. `what` names it in the reason it cannot be placed.
std::optional<std::int64_t> token_dim(Frame& fr, const std::vector<std::int64_t>& a,
                                      const std::vector<std::int64_t>& b, const std::string& what) {
  if (a.size() != b.size())
    throw Undescribable(
        fmt::format("{} has {} dims on one side and {} on the other", what, a.size(), b.size()));
  std::vector<std::int64_t> differ;
  for (std::size_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d]) differ.push_back(static_cast<std::int64_t>(d));
  if (fr.kind == Kind::runs) {  // the same shapes: the token dim is the one of the run's rows
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < a.size(); ++d)
      if (a[d] == fr.tokens) dims.push_back(static_cast<std::int64_t>(d));
    if (!differ.empty() || dims.size() > 1)
      throw Undescribable(fmt::format("{} [{}]: no one dim holds the run's {} rows", what,
                                      fmt::join(a, ", "), fr.tokens));
    if (dims.empty()) return std::nullopt;
    fr.rows = std::make_pair(fr.tokens, fr.tokens);
    fr.placed = true;
    return dims[0];
  }
  if (differ.empty()) return std::nullopt;
  const auto d = static_cast<std::size_t>(differ[0]);
  const auto rows = std::make_pair(a[d], b[d]);
  if (differ.size() > 1 || (fr.rows && *fr.rows != rows))
    throw Undescribable(fmt::format(
        "{} is [{}] on one side and [{}] on the other: more than the "
        "item's rows ({} and {}) differ",
        what, fmt::join(a, ", "), fmt::join(b, ", "), fr.rows ? fr.rows->first : rows.first,
        fr.rows ? fr.rows->second : rows.second));
  fr.rows = rows;
  fr.placed = true;
  return differ[0];
}

std::string dtype_of(const TensorMeta& m, const std::string& what) {
  if (!c10::isFloatingType(m.scalar_type)) {
    throw Undescribable(
        fmt::format("{} is a {} tensor: its values (indices, ids, a mask) are not "
                    "recorded, and drawn at random they would mean nothing",
                    what, m.dtype));
  }
  return dtype_name(m.scalar_type);
}

Json shape_json(const std::vector<std::int64_t>& shape, const std::optional<std::int64_t>& dim) {
  Json j = Json::array();
  for (std::size_t d = 0; d < shape.size(); ++d)
    j.push_back(dim && static_cast<std::int64_t>(d) == *dim ? Json(kRows) : Json(shape[d]));
  return j;
}

// An integer the two runs passed: itself where alike, "T" where each side passed its rows.
Json integer_json(const Frame& fr, std::int64_t a, std::int64_t b, const std::string& what) {
  if (a == b) return a;
  if (fr.kind == Kind::batch && fr.rows && *fr.rows == std::make_pair(a, b)) return kRows;
  throw Undescribable(fmt::format("{} is {} on one side and {} on the other", what, a, b));
}

Json value_json(const Frame& fr, const ArgValue& a, const ArgValue& b, const std::string& what) {
  if (a.index() != b.index())
    throw Undescribable(fmt::format("{} has different types on the two sides", what));
  if (const auto* x = std::get_if<std::int64_t>(&a))
    return integer_json(fr, *x, std::get<std::int64_t>(b), what);
  if (const auto* x = std::get_if<std::vector<std::int64_t>>(&a)) {
    const auto& y = std::get<std::vector<std::int64_t>>(b);
    if (x->size() != y.size())
      throw Undescribable(fmt::format("{} has {} and {} elements", what, x->size(), y.size()));
    Json list = Json::array();
    for (std::size_t i = 0; i < x->size(); ++i)
      list.push_back(integer_json(fr, (*x)[i], y[i], what));
    return list;
  }
  if (a != b) throw Undescribable(fmt::format("{} differs between the two sides", what));
  return std::visit(
      [](const auto& v) -> Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return nullptr;
        else
          return v;
      },
      a);
}

// The contract's "inputs" entry of one argument; null for one left to its default (None).
Json input_json(Frame& fr, const OpRecord& a, const OpRecord& b, std::size_t i,
                std::vector<std::string>& shared) {
  const ArgRecord& x = a.args[i];
  const ArgRecord& y = b.args.at(i);
  const std::string what = fmt::format("argument \"{}\" ({})", x.name, x.type);
  if (!x.not_described.empty() || !y.not_described.empty())
    throw Undescribable(fmt::format("{} is {}", what, x.not_described + y.not_described));
  if (x.tensor.has_value() != y.tensor.has_value())
    throw Undescribable(fmt::format("{} is a tensor on one side only", what));
  if (x.tensor) {
    const TensorMeta& ma = a.inputs.at(*x.tensor);
    const TensorMeta& mb = b.inputs.at(*y.tensor);
    const auto dim = token_dim(fr, ma.shape, mb.shape, what);
    if (ma.scalar_type != mb.scalar_type)
      throw Undescribable(
          fmt::format("{} is {} on one side, {} on the other", what, ma.dtype, mb.dtype));
    Json j{{"arg", x.name}, {"shape", shape_json(ma.shape, dim)}, {"dtype", dtype_of(ma, what)}};
    j["batch_dim"] = dim ? Json(*dim) : Json("none");
    if (dim && fr.kind == Kind::chunks) j["sequence_dim"] = *dim;
    if (!dim) shared.push_back(fmt::format("{} [{}]", x.name, fmt::join(ma.shape, ", ")));
    return j;
  }
  const bool none = std::holds_alternative<std::monostate>(x.value);
  if (none && x.defaults_to_none && std::holds_alternative<std::monostate>(y.value)) return nullptr;
  return Json{{"arg", x.name}, {"value", value_json(fr, x.value, y.value, what)}};
}

// Where the item sat in the model's batch: its packed rows' offset, or its padded sequence.
std::string place_of(const RowMap& m) {
  const bool packed = m.sequences <= 1;
  if (packed ? m.offset == 0 : m.sequence == 0) return "first";
  const bool at_end = packed ? m.offset + m.length == m.tokens : m.sequence == m.sequences - 1;
  return at_end ? "last" : "middle";
}

Json check_json(const Frame& fr, const Finding& f) {
  const auto [ra, rb] = *fr.rows;
  Json sweep;
  if (fr.kind == Kind::batch) {
    // Batches at least as long as the model's, of items as long as the item.
    std::vector<std::int64_t> batches = {2, std::max<std::int64_t>(2, (rb + ra - 1) / ra)};
    batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
    sweep = Json{{"batch", batches}, {"position", {place_of(f.b.recording.map)}}};
  } else if (fr.kind == Kind::runs) {
    sweep = Json{{"batch", {1}}};
  } else {
    const Json& given = f.subject.contains("chunk") ? f.subject["chunk"] : Json();
    const std::int64_t chunk =
        given.is_number_integer() ? given.get<std::int64_t>() : std::min(ra, rb);
    sweep = Json{{"chunk", {chunk}}, {"batch", {1}}};
  }
  return Json{{"kind", fr.check},
              {"compare", "bitwise"},
              {"sweep", sweep},
              {"expect", {{"aten", "holds"}}}};
}

// Each side's tensor arguments: "alone: self [24, 128], other [1, 128]".
std::string sides_text(const Side& side, const OpRecord& op) {
  std::vector<std::string> shapes;
  for (const auto& arg : op.args) {
    if (arg.tensor)
      shapes.push_back(
          fmt::format("{} [{}]", arg.name, fmt::join(op.inputs[*arg.tensor].shape, ", ")));
  }
  return fmt::format("{}: {}", side.name, fmt::join(shapes, ", "));
}

Json contract_of(const Finding& f, Frame& fr, const OpRecord& a, const OpRecord& b) {
  const std::string op = full_name(a);
  if (op.rfind("aten::", 0) != 0)
    throw Undescribable(op + " is not an aten:: op: a schema contract names ATen ops only");
  if (a.args.empty() || a.args.size() != b.args.size())
    throw Undescribable(op + ": its arguments were not recorded on both sides alike");
  std::vector<std::string> shared;
  Json inputs = Json::array();
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    Json j = input_json(fr, a, b, i, shared);
    if (!j.is_null()) inputs.push_back(std::move(j));
  }
  if (a.outputs.size() != a.returns.size() || b.outputs.size() != a.returns.size())
    throw Undescribable(fmt::format("{} returns {} tensors for {} returns", op, a.outputs.size(),
                                    a.returns.size()));
  Json outputs = Json::array();
  for (std::size_t k = 0; k < a.outputs.size(); ++k) {
    const std::string what = fmt::format("output \"{}\"", a.returns[k]);
    const auto dim = token_dim(fr, a.outputs[k].meta.shape, b.outputs[k].meta.shape, what);
    if (!dim)
      throw Undescribable(
          fmt::format("{} [{}] holds none of the item's rows apart: the op mixes "
                      "them, so no item's output can be cut out of a batch's",
                      what, fmt::join(a.outputs[k].meta.shape, ", ")));
    Json o{{"name", a.returns[k]}, {"batch_dim", *dim}};
    if (fr.kind == Kind::chunks) o["sequence_dim"] = *dim;
    outputs.push_back(std::move(o));
  }
  if (!fr.placed) throw Undescribable(op + ": no tensor argument holds the item's rows");
  const auto [ra, rb] = *fr.rows;
  const std::int64_t rows = fr.kind == Kind::chunks ? std::max(ra, rb) : ra;
  std::string description = fmt::format(
      "localize's first divergent op, {} in {}, rerun alone ({}, {} on {}; {}; {}). Its inputs are "
      "drawn afresh (normal), the model's values are not kept",
      op, a.region.empty() ? "(no region)" : a.region, f.subject.value("model", "a model"),
      f.subject.value("compare", ""), f.subject.value("device", ""), sides_text(f.a, a),
      sides_text(f.b, b));
  if (!shared.empty()) {
    const bool one = shared.size() == 1;
    description += fmt::format(
        "; {} {} none of the item's rows and {} drawn once for every item, where in the model {} "
        "may have been computed from the batch",
        fmt::join(shared, ", "), one ? "holds" : "hold", one ? "is" : "are", one ? "it" : "they");
  }
  std::string name = "localize." + op.substr(6);
  Json c;
  c["name"] = name;
  c["op"] = op;
  c["description"] = description + ".";
  c["implementations"] = {"aten"};
  if (fr.kind == Kind::chunks) c["sequence"] = kRows;
  c["inputs"] = std::move(inputs);
  c["outputs"] = std::move(outputs);
  c["sweep"] = Json{{kRows, {rows}}};
  c["checks"] = Json::array({check_json(fr, f)});
  return c;
}

}  // namespace

RerunContract rerun_contract(const Finding& f) {
  RerunContract out;
  if (!f.result.first) return out;
  const OpComparison& c = f.result.ops[*f.result.first];
  try {
    Frame fr = frame_of(f);
    out.check = fr.check;
    out.contract = contract_of(f, fr, f.a.recording.ops.at(*c.a), f.b.recording.ops.at(*c.b));
  } catch (const Undescribable& e) {
    out.contract.reset();
    out.why_not = e.what();
  }
  return out;
}

void attach_rerun(Finding& f, const std::string& path) {
  if (!f.result.first) return;
  RerunContract c = rerun_contract(f);
  Rerun r{c.check, "", "", c.why_not};
  if (c.contract && !path.empty()) {
    write_file_atomically(path, c.contract->dump(2) + "\n");
    const std::string device = f.subject.value("device", "cpu");
    r.file = path;
    r.command = rerun_command(path, device.rfind("cuda", 0) == 0 ? "cuda" : "cpu");
  }
  f.rerun = std::move(r);
}

std::string rerun_command(const std::string& path, const std::string& device) {
  const bool plain = std::all_of(path.begin(), path.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) ||
           std::string("_./-+=:,").find(ch) != std::string::npos;
  });
  std::string quoted = "'";
  for (char ch : path) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return fmt::format("samebits run {} --device {}", plain ? path : quoted + "'", device);
}

}  // namespace samebits::localize
