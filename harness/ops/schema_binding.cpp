// A schema-op contract's inputs bound to the op's c10 schema: every argument found, typed and
// given (or defaulted), the outputs named, the axes typed; and each argument's IValue at a point.
#include "harness/ops/schema_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "common/errors.h"

namespace samebits {
namespace {

// The kind of value an argument takes, with Optional[...] taken off.
struct ArgKind {
  c10::TypePtr type;  // without Optional
  bool optional = false;
};
ArgKind kind_of(const c10::Argument& a) {
  c10::TypePtr t = a.real_type();
  bool optional = false;
  if (t->kind() == c10::TypeKind::OptionalType) {
    t = t->castRaw<c10::OptionalType>()->getElementType();
    optional = true;
  }
  return {t, optional};
}

bool integral(c10::TypeKind k) {
  return k == c10::TypeKind::IntType || k == c10::TypeKind::SymIntType;
}
bool is_int_list(const c10::TypePtr& t) {
  return t->kind() == c10::TypeKind::ListType &&
         integral(t->castRaw<c10::ListType>()->getElementType()->kind());
}

// The axis type a non-tensor argument takes its value from, or nothing where none fits.
std::optional<AxisSpec::Type> axis_type(const c10::TypePtr& t) {
  switch (t->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: return AxisSpec::Type::integer;
    case c10::TypeKind::FloatType:
    case c10::TypeKind::NumberType: return AxisSpec::Type::number;
    case c10::TypeKind::BoolType: return AxisSpec::Type::flag;
    case c10::TypeKind::StringType:
    case c10::TypeKind::ScalarTypeType: return AxisSpec::Type::text;
    default: break;
  }
  if (is_int_list(t)) return AxisSpec::Type::integer_list;
  return std::nullopt;
}

std::string schema_string(const c10::FunctionSchema& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

// Why a JSON literal is not a value of type `t` ("" when it is). Strings for integers are
// expressions: their syntax is checked here, their axes by the caller.
std::string literal_problem(const c10::TypePtr& t, const Json& v, std::vector<ShapeExpr>& exprs) {
  const auto expression = [&](const Json& e) -> std::string {
    if (e.is_number_integer()) return "";
    if (!e.is_string())
      return fmt::format("expected an integer or an expression, got {}", e.dump());
    try {
      exprs.push_back(ShapeExpr::parse(e.get<std::string>()));
    } catch (const std::invalid_argument& err) {
      return err.what();
    }
    return "";
  };
  switch (t->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: return expression(v);
    case c10::TypeKind::FloatType:
      return v.is_number() ? "" : fmt::format("expected a number, got {}", v.dump());
    case c10::TypeKind::NumberType:
      return v.is_number() || v.is_boolean()
                 ? ""
                 : fmt::format("expected a number or a boolean, got {}", v.dump());
    case c10::TypeKind::BoolType:
      return v.is_boolean() ? "" : fmt::format("expected true or false, got {}", v.dump());
    case c10::TypeKind::StringType:
      return v.is_string() ? "" : fmt::format("expected a string, got {}", v.dump());
    case c10::TypeKind::ScalarTypeType: {
      const auto& names = dtype_names();
      if (v.is_string() &&
          std::find(names.begin(), names.end(), v.get<std::string>()) != names.end())
        return "";
      return fmt::format("expected a dtype, got {}; accepted: {}", v.dump(),
                         fmt::join(names, ", "));
    }
    default: break;
  }
  if (is_int_list(t)) {
    if (!v.is_array()) return expression(v);  // int[N] takes one value for all N
    for (const auto& e : v) {
      const std::string why = expression(e);
      if (!why.empty()) return why;
    }
    return "";
  }
  return fmt::format("arguments of type {} are not supported; leave it out to take its default",
                     t->str());
}

// Finds the op's handle: "aten::NAME" (the overload "") or "aten::NAME.OVERLOAD".
c10::OperatorHandle find_handle(const Contract& c) {
  const auto sep = c.op.find("::");
  const auto dot = c.op.find('.', sep);
  const std::string name = c.op.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : c.op.substr(dot + 1);
  auto& dispatcher = c10::Dispatcher::singleton();
  if (auto handle = dispatcher.findSchema({name, overload})) return *handle;
  if (c.op.rfind("python::", 0) == 0) {
    throw_contract_error(c.source, "/op",
                         fmt::format("{} is a Python callable that samebits.check() ran; only "
                                     "that call can run it again, in Python",
                                     c.op));
  }
  std::vector<std::string> overloads, similar;
  const std::string base = name.substr(sep + 2);
  for (const auto& op : dispatcher.getAllOpNames()) {
    if (op.name == name && dispatcher.findSchema(op)) {
      overloads.push_back(op.overload_name.empty() ? op.name : op.name + "." + op.overload_name);
    } else if (op.name.find(base) != std::string::npos && op.overload_name.empty() &&
               similar.size() < 8) {
      similar.push_back(op.name);
    }
  }
  std::sort(overloads.begin(), overloads.end());
  if (!overloads.empty()) {
    throw_contract_error(c.source, "/op",
                         fmt::format("{} has no overload \"{}\"; accepted: {}", name, overload,
                                     fmt::join(overloads, ", ")));
  }
  throw_contract_error(
      c.source, "/op",
      fmt::format("unknown schema op \"{}\": no operator of that name is registered{}", c.op,
                  similar.empty() ? std::string()
                                  : fmt::format(" (names like it: {})", fmt::join(similar, ", "))));
}

void add_axis(BoundSchema& out, const Contract& c, const std::string& name, AxisSpec::Type type,
              std::vector<std::string> choices, const std::string& help, const std::string& path) {
  for (const auto& a : out.axes) {
    if (a.name != name) continue;
    if (a.type != type) {
      throw_contract_error(c.source, path,
                           fmt::format("axis \"{}\" is read as two different types here and as "
                                       "\"{}\" elsewhere",
                                       name, a.help));
    }
    return;
  }
  out.axes.push_back({name, type, nullptr, std::move(choices), help});
}

void bind_tensor(const Contract& c, BoundSchema& out, BoundArg& b) {
  const TensorInput& t = *b.tensor;
  const auto& dtypes = dtype_names();
  if (!t.dtype.empty() && std::find(dtypes.begin(), dtypes.end(), t.dtype) == dtypes.end()) {
    throw_contract_error(
        c.source, b.json_path + "/dtype",
        fmt::format("unknown dtype \"{}\"; accepted: {}", t.dtype, fmt::join(dtypes, ", ")));
  }
  std::vector<std::string> generators;
  for (const auto& g : generator_catalog()) generators.push_back(g.name);
  if (!t.values.integers() && t.values.generator_axis.empty() &&
      !is_generator(t.values.generator)) {
    throw_contract_error(c.source, b.json_path + "/generator",
                         fmt::format("unknown generator \"{}\"; accepted: {}, or {{\"integers\": "
                                     "[low, high]}}",
                                     t.values.generator, fmt::join(generators, ", ")));
  }
  if (!t.dtype.empty() && !c10::isFloatingType(parse_dtype(t.dtype)) && !t.values.integers()) {
    throw_contract_error(c.source, b.json_path + "/generator",
                         fmt::format("a {} tensor needs integer values: {{\"integers\": [low, "
                                     "high]}}",
                                     t.dtype));
  }
  for (const auto& e : t.shape) {
    for (const auto& axis : e.axes())
      add_axis(out, c, axis, AxisSpec::Type::integer, {}, "an extent (integer)", b.json_path);
  }
  if (t.values.integers()) {
    for (const auto* e : {&*t.values.low, &*t.values.high}) {
      for (const auto& axis : e->axes())
        add_axis(out, c, axis, AxisSpec::Type::integer, {}, "an extent (integer)", b.json_path);
    }
  }
  if (!t.dtype_axis.empty())
    add_axis(out, c, t.dtype_axis, AxisSpec::Type::text, dtypes, "a dtype", b.json_path);
  if (!t.values.generator_axis.empty())
    add_axis(out, c, t.values.generator_axis, AxisSpec::Type::text, generators, "a generator",
             b.json_path);
  b.slot = t.batch_dim ? out.batched++ : out.shared++;
}

void bind_value(const Contract& c, BoundSchema& out, BoundArg& b) {
  const ArgKind kind = kind_of(b.argument);
  const std::string type = b.argument.real_type()->str();
  if (kind.type->kind() == c10::TypeKind::TensorType) {
    if (kind.optional && b.value.axis.empty() && b.value.literal.is_null()) return;  // None
    throw_contract_error(
        c.source, b.json_path,
        fmt::format("argument \"{}\" is a {}: give its \"shape\", \"dtype\", "
                    "\"generator\" and \"batch_dim\"{}",
                    b.argument.name(), type, kind.optional ? ", or \"value\": null for None" : ""));
  }
  if (!b.value.axis.empty()) {
    const auto axis = axis_type(kind.type);
    if (!axis) {
      throw_contract_error(
          c.source, b.json_path + "/axis",
          fmt::format("argument \"{}\" ({}) cannot take an axis's value", b.argument.name(), type));
    }
    const bool dtype = kind.type->kind() == c10::TypeKind::ScalarTypeType;
    add_axis(out, c, b.value.axis, *axis, dtype ? dtype_names() : std::vector<std::string>{},
             fmt::format("argument {} ({})", b.argument.name(), type), b.json_path + "/axis");
    return;
  }
  if (b.value.literal.is_null()) {
    if (kind.optional) return;
    throw_contract_error(c.source, b.json_path + "/value",
                         fmt::format("argument \"{}\" is a {}, which takes no None (null)",
                                     b.argument.name(), type));
  }
  std::vector<ShapeExpr> exprs;
  const std::string why = literal_problem(kind.type, b.value.literal, exprs);
  if (!why.empty()) {
    throw_contract_error(c.source, b.json_path + "/value",
                         fmt::format("argument \"{}\" is a {}: {}", b.argument.name(), type, why));
  }
  for (const auto& e : exprs) {
    for (const auto& axis : e.axes()) {
      check_axis_known({axis, b.json_path + "/value", "value"}, c);
      add_axis(out, c, axis, AxisSpec::Type::integer, {}, "an extent (integer)", b.json_path);
    }
  }
}

}  // namespace

void bind_schema(const Contract& c, BoundSchema& out) {
  out.handle.emplace(find_handle(c));
  bind_schema(c, out.handle->schema(), out);
}

void bind_schema(const Contract& c, const c10::FunctionSchema& schema, BoundSchema& out) {
  out.spec = *c.inputs;
  out.schema_text = schema_string(schema);
  std::vector<std::string> arg_names;
  for (const auto& a : schema.arguments()) arg_names.push_back(a.name());
  for (const auto& given : out.spec.args) {
    if (std::find(arg_names.begin(), arg_names.end(), given.arg) == arg_names.end()) {
      throw_contract_error(c.source, given.json_path + "/arg",
                           fmt::format("{} has no argument \"{}\"; accepted: {}", c.op, given.arg,
                                       fmt::join(arg_names, ", ")));
    }
  }
  for (const auto& a : schema.arguments()) {
    BoundArg b;
    b.argument = a;
    const InputArg* given = out.spec.find(a.name());
    if (!given) {
      if (!a.default_value()) {
        throw_contract_error(
            c.source, "/inputs",
            fmt::format("argument \"{}\" ({}) of {} is missing and has no default; the schema: {}",
                        a.name(), a.real_type()->str(), c.op, out.schema_text));
      }
      out.args.push_back(std::move(b));
      continue;
    }
    b.json_path = given->json_path;
    if (given->tensor) {
      if (kind_of(a).type->kind() != c10::TypeKind::TensorType) {
        throw_contract_error(c.source, given->json_path,
                             fmt::format("argument \"{}\" of {} is a {}, not a tensor: give "
                                         "\"value\" or \"axis\", not \"shape\"",
                                         a.name(), c.op, a.real_type()->str()));
      }
      b.source = BoundArg::Source::tensor;
      b.tensor = &*given->tensor;
      bind_tensor(c, out, b);
    } else {
      b.source = BoundArg::Source::value;
      b.value = given->value;
      bind_value(c, out, b);
    }
    out.args.push_back(std::move(b));
  }
  for (auto& b : out.args) {
    if (b.source != BoundArg::Source::tensor || b.tensor->indexes.empty()) continue;
    for (const auto& target : out.args) {
      if (target.argument.name() == b.tensor->indexes) b.indexes_slot = target.slot;
    }
  }
  std::vector<std::string> returns;
  for (std::size_t i = 0; i < schema.returns().size(); ++i) {
    const auto& r = schema.returns()[i];
    if (r.type()->kind() != c10::TypeKind::TensorType) {
      throw_contract_error(c.source, "/op",
                           fmt::format("{} returns a {} (return {}); only tensor returns are "
                                       "supported",
                                       c.op, r.real_type()->str(), i));
    }
    returns.push_back(r.name().empty() ? fmt::format("out{}", i) : r.name());
  }
  if (returns.empty())
    throw_contract_error(c.source, "/op", fmt::format("{} returns nothing to compare", c.op));
  const TensorInput* batched = out.spec.first_batched();
  const TensorInput* sequenced = out.spec.first_sequenced();
  const auto bound = [&](const std::string& name, std::size_t index, const OutputDecl* decl) {
    BoundOutput o{name, index, *batched->batch_dim,
                  sequenced ? sequenced->sequence_dim : std::nullopt};
    if (decl && decl->batch_dim) o.batch_dim = *decl->batch_dim;
    if (decl && decl->sequence_dim) o.sequence_dim = decl->sequence_dim;
    out.outputs.push_back(o);
  };
  if (out.spec.outputs.empty()) {
    for (std::size_t i = 0; i < returns.size(); ++i) bound(returns[i], i, nullptr);
  }
  for (const auto& decl : out.spec.outputs) {
    const auto it = std::find(returns.begin(), returns.end(), decl.name);
    if (it == returns.end()) {
      throw_contract_error(c.source, decl.json_path + "/name",
                           fmt::format("{} returns no \"{}\"; accepted: {}", c.op, decl.name,
                                       fmt::join(returns, ", ")));
    }
    bound(decl.name, static_cast<std::size_t>(it - returns.begin()), &decl);
  }
}

std::int64_t evaluate_at(const ShapeExpr& expr, const Point& point) {
  return expr.evaluate([&](const std::string& axis) -> std::optional<std::int64_t> {
    if (!point.has(axis) || !point.at(axis).is_number_integer()) return std::nullopt;
    return point.at(axis).get<std::int64_t>();
  });
}

c10::ScalarType dtype_at(const TensorInput& t, const Point& point) {
  return parse_dtype(t.dtype_axis.empty() ? t.dtype : point.text(t.dtype_axis));
}

std::string generator_at(const TensorInput& t, const Point& point) {
  return t.values.generator_axis.empty() ? t.values.generator : point.text(t.values.generator_axis);
}

c10::IValue value_at(const BoundArg& arg, const Point& point) {
  if (arg.source == BoundArg::Source::schema_default) return *arg.argument.default_value();
  const Json& v = arg.value.axis.empty() ? arg.value.literal : point.at(arg.value.axis);
  if (v.is_null()) return c10::IValue();
  const c10::TypePtr t = kind_of(arg.argument).type;
  const auto integer = [&](const Json& e) -> std::int64_t {
    if (e.is_number_integer()) return e.get<std::int64_t>();
    return evaluate_at(ShapeExpr::parse(e.get<std::string>()), point);
  };
  switch (t->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: return integer(v);
    case c10::TypeKind::FloatType: return v.get<double>();
    case c10::TypeKind::NumberType:
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer()) return v.get<std::int64_t>();
      return v.get<double>();
    case c10::TypeKind::BoolType: return v.get<bool>();
    case c10::TypeKind::StringType: return v.get<std::string>();
    case c10::TypeKind::ScalarTypeType: return parse_dtype(v.get<std::string>());
    default: break;
  }
  if (is_int_list(t)) {
    std::vector<std::int64_t> list;
    if (v.is_array()) {
      for (const auto& e : v) list.push_back(integer(e));
    } else {
      list.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, arg.argument.N().value_or(1))),
                  integer(v));
    }
    return list;
  }
  throw std::invalid_argument(
      fmt::format("argument \"{}\": type {} is not supported", arg.argument.name(), t->str()));
}

}  // namespace samebits
