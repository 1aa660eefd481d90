// What a schema-op contract ("op": "aten::layer_norm") says about the op's arguments, read from
// JSON field by field (every error a JSON path and the accepted forms) and checked against its
// sweep and checks. The schema's own types are checked where the schema is known (harness/ops).
#include "contracts/input_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "common/errors.h"
#include "common/json_fields.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

// A shape extent or integer bound: an integer, or an expression of axes in a string.
ShapeExpr read_extent(const Json& j, const std::string& pointer) {
  if (j.is_number_integer()) return ShapeExpr::constant(j.get<std::int64_t>());
  if (!j.is_string()) {
    throw FieldError(pointer, fmt::format("expected an integer or an expression of axes (\"n*2\"), "
                                          "got {}",
                                          j.dump()));
  }
  try {
    return ShapeExpr::parse(j.get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw FieldError(pointer, e.what());
  }
}

// {"axis": NAME}: the value of a sweep axis.
std::string read_axis_ref(const Json& j, const std::string& pointer) {
  return within(pointer, [&] {
    const Fields f(j);
    f.only({"axis"});
    const std::string axis = f.text("axis");
    if (axis.empty()) throw FieldError("/axis", "name the axis: {\"axis\": NAME}");
    return axis;
  });
}

// An optional dim: an integer in [0, rank), or (where `none_ok`) "none".
std::optional<std::int64_t> read_dim(const Fields& f, const std::string& key, std::size_t rank,
                                     bool none_ok) {
  const Json& v = f.json().at(key);
  if (none_ok && v.is_string() && v.get<std::string>() == "none") return std::nullopt;
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
      v.get<std::int64_t>() >= static_cast<std::int64_t>(rank)) {
    throw FieldError(
        Fields::at(key),
        fmt::format("expected a dim of the {}-dim shape: an integer in [0, {}){}, "
                    "got {}",
                    rank, rank, none_ok ? ", or \"none\" (shared by every item)" : "", v.dump()));
  }
  return v.get<std::int64_t>();
}

TensorInput read_tensor(const Fields& f) {
  TensorInput t;
  const Json& shape = f.array("shape");
  for (std::size_t i = 0; i < shape.size(); ++i)
    t.shape.push_back(read_extent(shape[i], fmt::format("/shape/{}", i)));
  if (f.has("dtype")) {
    const Json& d = f.json().at("dtype");
    if (d.is_string()) {
      t.dtype = d.get<std::string>();
    } else if (d.is_object()) {
      t.dtype_axis = read_axis_ref(d, "/dtype");
    } else {
      throw FieldError("/dtype", "expected a dtype name (\"float32\") or {\"axis\": NAME}");
    }
  }
  if (f.has("generator")) {
    const Json& g = f.json().at("generator");
    if (g.is_string()) {
      t.values.generator = g.get<std::string>();
    } else if (g.is_object() && g.contains("integers")) {
      within("/generator", [&] {
        Fields(g).only({"integers"});
        const Json& r = g.at("integers");
        if (!r.is_array() || r.size() != 2)
          throw FieldError("/integers", "expected [low, high]: integers drawn in [low, high)");
        t.values.low = read_extent(r[0], "/integers/0");
        t.values.high = read_extent(r[1], "/integers/1");
      });
    } else if (g.is_object()) {
      t.values.generator_axis = read_axis_ref(g, "/generator");
    } else {
      throw FieldError("/generator",
                       "expected a generator name (\"normal\"), {\"axis\": NAME} or "
                       "{\"integers\": [low, high]}");
    }
  }
  if (t.dtype.empty() && t.dtype_axis.empty()) t.dtype = t.values.integers() ? "int64" : "float32";
  if (!f.has("batch_dim")) {
    throw FieldError("",
                     "missing field \"batch_dim\": the dim items are concatenated along, or "
                     "\"none\" for a tensor every item shares");
  }
  t.batch_dim = read_dim(f, "batch_dim", t.shape.size(), true);
  if (f.has("sequence_dim")) t.sequence_dim = read_dim(f, "sequence_dim", t.shape.size(), false);
  t.indexes = f.text("indexes");
  if (!t.indexes.empty() && (!t.values.integers() || !t.batch_dim)) {
    throw FieldError("/indexes",
                     "\"indexes\" applies to a batched tensor of integers "
                     "({\"integers\": [low, high]}) with a batch_dim");
  }
  return t;
}

InputArg read_arg(const Json& j) {
  const Fields f(j);
  InputArg a;
  a.arg = f.text("arg");
  if (a.arg.empty()) throw FieldError("", "missing field \"arg\": the schema argument's name");
  if (f.has("shape")) {
    f.only({"arg", "shape", "dtype", "generator", "batch_dim", "sequence_dim", "indexes"});
    a.tensor = read_tensor(f);
    return a;
  }
  const bool literal = j.contains("value");
  if (literal == f.has("axis")) {
    throw FieldError("", fmt::format("argument \"{}\": give \"shape\" (a tensor), \"value\" (a "
                                     "literal; null for None) or \"axis\" (a sweep axis's value)",
                                     a.arg));
  }
  f.only({"arg", "value", "axis"});
  if (literal)
    a.value.literal = j.at("value");
  else
    a.value.axis = f.text("axis");
  return a;
}

OutputDecl read_output(const Json& j) {
  const Fields f(j);
  f.only({"name", "batch_dim", "sequence_dim"});
  OutputDecl o;
  o.name = f.text("name");
  if (o.name.empty()) throw FieldError("", "missing field \"name\": a return of the schema");
  for (const char* key : {"batch_dim", "sequence_dim"}) {
    if (!f.has(key)) continue;
    const Json& v = j.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      throw FieldError(Fields::at(key),
                       fmt::format("expected a non-negative dim, got {}", v.dump()));
    (std::string(key) == "batch_dim" ? o.batch_dim : o.sequence_dim) = v.get<std::int64_t>();
  }
  return o;
}

}  // namespace

const InputArg* InputSpec::find(const std::string& name) const {
  for (const auto& a : args) {
    if (a.arg == name) return &a;
  }
  return nullptr;
}

const TensorInput* InputSpec::first_batched() const {
  for (const auto& a : args) {
    if (a.tensor && a.tensor->batch_dim) return &*a.tensor;
  }
  return nullptr;
}

const TensorInput* InputSpec::first_sequenced() const {
  for (const auto& a : args) {
    if (a.tensor && a.tensor->sequence_dim) return &*a.tensor;
  }
  return nullptr;
}

std::vector<AxisUse> axis_uses(const InputSpec& spec) {
  std::vector<AxisUse> out;
  if (!spec.sequence.empty()) out.push_back({spec.sequence, "/sequence", "sequence"});
  for (const auto& a : spec.args) {
    if (!a.tensor) {
      if (!a.value.axis.empty()) out.push_back({a.value.axis, a.json_path + "/axis", "value"});
      continue;
    }
    const TensorInput& t = *a.tensor;
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      for (const auto& axis : t.shape[i].axes())
        out.push_back({axis, fmt::format("{}/shape/{}", a.json_path, i), "shape"});
    }
    if (!t.dtype_axis.empty()) out.push_back({t.dtype_axis, a.json_path + "/dtype", "dtype"});
    if (!t.values.generator_axis.empty())
      out.push_back({t.values.generator_axis, a.json_path + "/generator", "generator"});
    if (t.values.integers()) {
      for (const auto* bound : {&*t.values.low, &*t.values.high}) {
        for (const auto& axis : bound->axes())
          out.push_back({axis, a.json_path + "/generator/integers", "integer bound"});
      }
    }
  }
  return out;
}

InputSpec read_input_spec(const Json& doc) {
  InputSpec spec;
  const Fields top(doc);
  spec.sequence = top.text("sequence");
  const Json& inputs = top.array("inputs");
  if (inputs.empty()) throw FieldError("/inputs", "name at least one argument");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = fmt::format("/inputs/{}", i);
    InputArg a = within(path, [&] { return read_arg(inputs[i]); });
    a.json_path = path;
    if (const InputArg* first = spec.find(a.arg)) {
      throw FieldError(path + "/arg", fmt::format("argument \"{}\" is given twice (first at {})",
                                                  a.arg, first->json_path));
    }
    if (a.tensor && a.tensor->sequence_dim) {
      const auto& extent = a.tensor->shape[static_cast<std::size_t>(*a.tensor->sequence_dim)];
      if (spec.sequence.empty()) {
        throw FieldError(path + "/sequence_dim",
                         "a sequence dim needs the contract's \"sequence\": the axis of the items' "
                         "length");
      }
      if (!extent.is_axis(spec.sequence)) {
        throw FieldError(path + "/sequence_dim",
                         fmt::format("the sequence dim's extent must be the sequence axis \"{}\" "
                                     "itself, not \"{}\"",
                                     spec.sequence, extent.text()));
      }
    }
    spec.args.push_back(std::move(a));
  }
  for (const auto& a : spec.args) {
    if (!a.tensor || a.tensor->indexes.empty()) continue;
    const InputArg* target = spec.find(a.tensor->indexes);
    if (!target || !target->tensor || !target->tensor->batch_dim || target == &a) {
      std::vector<std::string> batched;
      for (const auto& b : spec.args) {
        if (b.tensor && b.tensor->batch_dim && &b != &a) batched.push_back(b.arg);
      }
      throw FieldError(a.json_path + "/indexes",
                       fmt::format("\"{}\" is not another batched tensor input; accepted: {}",
                                   a.tensor->indexes, fmt::join(batched, ", ")));
    }
  }
  if (!spec.first_batched()) {
    throw FieldError("/inputs",
                     "no tensor input has a batch_dim: items are slices along one, so give at "
                     "least one tensor an integer \"batch_dim\"");
  }
  if (!spec.sequence.empty() && !spec.first_sequenced()) {
    throw FieldError("/sequence", fmt::format("no input has a \"sequence_dim\" of extent \"{}\"",
                                              spec.sequence));
  }
  if (top.has("outputs")) {
    const Json& outputs = top.array("outputs");
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::string path = fmt::format("/outputs/{}", i);
      OutputDecl o = within(path, [&] { return read_output(outputs[i]); });
      o.json_path = path;
      for (const auto& seen : spec.outputs) {
        if (seen.name == o.name)
          throw FieldError(path + "/name", fmt::format("output \"{}\" is listed twice", o.name));
      }
      spec.outputs.push_back(std::move(o));
    }
    if (spec.outputs.empty())
      throw FieldError("/outputs", "list at least one output, or leave it out");
  }
  Json key = Json::object();
  for (const char* k : {"op", "inputs", "outputs", "sequence"}) {
    if (doc.contains(k)) key[k] = doc.at(k);
  }
  spec.key = key.dump();
  return spec;
}

void check_input_spec(const InputSpec& spec, const Contract& c) {
  for (const auto& check : c.checks) {
    if ((check.kind == CheckKind::padding_invariance ||
         check.kind == CheckKind::chunking_invariance) &&
        spec.sequence.empty()) {
      throw_contract_error(
          c.source, check.json_path + "/kind",
          fmt::format("check kind {} cuts the items along a sequence dim, and op {} has none: "
                      "give \"sequence\" (the axis of the items' length) and \"sequence_dim\" "
                      "on the inputs that have it, or use another kind",
                      to_string(check.kind), c.op));
    }
  }
  for (const auto& use : axis_uses(spec)) check_axis_known(use, c);
}

void check_axis_known(const AxisUse& use, const Contract& c) {
  for (const auto& check : c.checks) {
    const SweepDecl sweep = merge_sweeps(c.sweep, check.sweep);
    if (sweep.find(use.axis)) continue;
    std::vector<std::string> names;
    for (const auto& a : sweep.axes) names.push_back(a.name);
    throw_contract_error(
        c.source, use.json_path,
        fmt::format(
            "unknown axis \"{}\" (in the {}): check \"{}\" has no such axis in its sweep "
            "or the contract's; accepted: {}",
            use.axis, use.what, check.name,
            names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  }
}

bool is_schema_name(const std::string& op) {
  const auto sep = op.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 >= op.size()) return false;
  const auto plain = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
  };
  return std::all_of(op.begin(), op.begin() + static_cast<std::ptrdiff_t>(sep), plain) &&
         std::all_of(op.begin() + static_cast<std::ptrdiff_t>(sep) + 2, op.end(), plain);
}

}  // namespace samebits
