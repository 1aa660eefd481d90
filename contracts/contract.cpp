// Structural parser for contracts: every field is typed, named and checked against accepted values,
// and every error names the file, the JSON path and what would have been accepted.
#include "contracts/contract.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "common/digest.h"
#include "common/errors.h"
#include "common/file_text.h"
#include "common/object_reader.h"

namespace samebits {
namespace {

using json_reading::accepted;
using json_reading::EnumTable;
using json_reading::name_of;
using json_reading::ObjectReader;

const EnumTable<CheckKind>& check_kinds() {
  static const EnumTable<CheckKind> table{check_kind_names(), all_check_kinds()};
  return table;
}
const EnumTable<CompareMode>& compare_modes() {
  static const EnumTable<CompareMode> table{
      {"bitwise", "ulp", "allclose", "indices"},
      {CompareMode::bitwise, CompareMode::ulp, CompareMode::allclose, CompareMode::indices}};
  return table;
}
const EnumTable<Expectation>& expectations() {
  static const EnumTable<Expectation> table{
      {"holds", "violated", "unknown"},
      {Expectation::holds, Expectation::violated, Expectation::unknown}};
  return table;
}

// An implementation's expectation: a promise (the outcomes above) or "observed".
constexpr const char* kObserved = "observed";
const EnumTable<Expectation>& expectations_or_observed() {
  static const EnumTable<Expectation> table{
      {"holds", "violated", "unknown", kObserved},
      {Expectation::holds, Expectation::violated, Expectation::unknown, Expectation::unknown}};
  return table;
}

// Expands {"range": [first, last]} or {"range": [first, last, step]} (inclusive) into integers.
std::vector<Json> expand_range(const Json& node, const std::string& path, const std::string& file) {
  ObjectReader reader(node, path, file, {"range"});
  const Json& r = reader.required("range");
  const std::string rpath = reader.child("range");
  if (!r.is_array() || r.size() < 2 || r.size() > 3) {
    throw_contract_error(file, rpath,
                         "expected [first, last] or [first, last, step] (integers, inclusive)");
  }
  for (const auto& v : r) {
    if (!v.is_number_integer())
      throw_contract_error(file, rpath, "range bounds and step must be integers");
  }
  const std::int64_t first = r[0].get<std::int64_t>();
  const std::int64_t last = r[1].get<std::int64_t>();
  const std::int64_t step = r.size() == 3 ? r[2].get<std::int64_t>() : 1;
  if (step <= 0)
    throw_contract_error(file, rpath, fmt::format("step must be positive, got {}", step));
  if (last < first) {
    throw_contract_error(file, rpath, fmt::format("empty range: last {} < first {}", last, first));
  }
  // Unsigned: last - first and v += step may not fit in int64 near its ends.
  const std::uint64_t span = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first);
  const std::uint64_t steps = span / static_cast<std::uint64_t>(step);
  if (steps >= 1'000'000) {
    throw_contract_error(file, rpath, "range has more than a million values");
  }
  std::vector<Json> out;
  for (std::uint64_t i = 0; i <= steps; ++i) {
    out.emplace_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(first) +
                                               i * static_cast<std::uint64_t>(step)));
  }
  return out;
}

std::vector<Json> parse_axis_values(const Json& node, const std::string& path,
                                    const std::string& file) {
  if (node.is_array()) {
    if (node.empty()) throw_contract_error(file, path, "an axis needs at least one value");
    std::vector<Json> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const Json& v = node[i];
      if (v.is_object() || v.is_null()) {
        throw_contract_error(file, fmt::format("{}/{}", path, i),
                             "axis values are numbers, strings, booleans or arrays of them");
      }
      out.push_back(v);
    }
    return out;
  }
  if (node.is_object() && node.contains("range")) return expand_range(node, path, file);
  throw_contract_error(
      file, path,
      "expected an array of values, {\"range\": [first, last(, step)]}, or an object "
      "keyed by device (any, cpu, cuda) holding either");
}

SweepDecl parse_sweep(const Json& node, const std::string& path, const std::string& file) {
  SweepDecl sweep;
  if (!node.is_object()) throw_contract_error(file, path, "expected an object of named axes");
  for (const auto& item : node.items()) {
    AxisDecl axis;
    axis.name = item.key();
    axis.json_path = path + Fields::at(item.key());
    const Json& v = item.value();
    const bool by_device = v.is_object() && !v.contains("range");
    if (by_device) {
      std::vector<std::string> keys = {"any"};
      for (const auto& d : device_names()) keys.push_back(d);
      for (const auto& dev : v.items()) {
        if (std::find(keys.begin(), keys.end(), dev.key()) == keys.end()) {
          throw_contract_error(file, axis.json_path + Fields::at(dev.key()),
                               fmt::format("unknown device \"{}\"; {}", dev.key(), accepted(keys)));
        }
        axis.values_by_device[dev.key()] =
            parse_axis_values(dev.value(), axis.json_path + "/" + dev.key(), file);
      }
      if (axis.values_by_device.empty()) {
        throw_contract_error(file, axis.json_path,
                             "an axis keyed by device needs at least one device");
      }
    } else {
      axis.values_by_device["any"] = parse_axis_values(v, axis.json_path, file);
    }
    sweep.axes.push_back(std::move(axis));
  }
  return sweep;
}

Comparison parse_comparison(const Json& node, const std::string& path, const std::string& file) {
  Comparison c;
  if (node.is_string()) {
    ObjectReader dummy(Json::object(), path, file, {});
    c.mode = dummy.parse_enum(node.get<std::string>(), path, compare_modes(), "comparison");
    return c;
  }
  ObjectReader r(node, path, file,
                 {"mode", "rtol", "atol", "max_ulp", "equal_nan", "max_mismatches",
                  "max_mismatch_fraction", "outputs"});
  c.mode = r.enumerated("mode", compare_modes(), "comparison");
  c.rtol = r.number("rtol");
  c.atol = r.number("atol");
  if (c.rtol.has_value() != c.atol.has_value()) {
    r.fail(path,
           "give rtol and atol together (as torch.testing.assert_close does), or neither for "
           "the per-dtype defaults");
  }
  if ((c.rtol || c.atol) && c.mode != CompareMode::allclose) {
    r.fail(r.child(c.rtol ? "rtol" : "atol"), "rtol/atol apply only to mode \"allclose\"");
  }
  if (r.has("max_ulp")) {
    if (c.mode != CompareMode::ulp)
      r.fail(r.child("max_ulp"), "max_ulp applies only to mode \"ulp\"");
    c.max_ulp = *r.count("max_ulp");
  }
  c.equal_nan = r.boolean("equal_nan", false);
  c.max_mismatches = r.count("max_mismatches");
  c.max_mismatch_fraction = r.number("max_mismatch_fraction");
  if (c.max_mismatch_fraction && *c.max_mismatch_fraction > 1.0) {
    r.fail(r.child("max_mismatch_fraction"), "a fraction lies in [0, 1]");
  }
  c.outputs = r.strings("outputs");
  return c;
}

// A comparison's parameters written beside "compare" instead of inside it (`"compare": "ulp",
// "max_ulp": 4`, as the README once showed): refused with the form the parser takes.
void refuse_loose_comparison_fields(const Json& check, const std::string& path,
                                    const std::string& file) {
  if (!check.is_object()) return;
  for (const char* key : {"mode", "rtol", "atol", "max_ulp", "equal_nan", "max_mismatches",
                          "max_mismatch_fraction", "outputs"}) {
    if (!check.contains(key)) continue;
    std::string mode = "bitwise";
    if (check.contains("compare") && check["compare"].is_string()) {
      mode = check["compare"].get<std::string>();
    } else if (std::string(key) == "max_ulp") {
      mode = "ulp";
    } else if (std::string(key) == "rtol" || std::string(key) == "atol") {
      mode = "allclose";
    }
    const std::string example =
        std::string(key) == "mode" ? fmt::format("\"compare\": {{\"mode\": {}}}", check[key].dump())
                                   : fmt::format("\"compare\": {{\"mode\": \"{}\", \"{}\": {}}}",
                                                 mode, key, check[key].dump());
    throw_contract_error(file, path + "/" + key,
                         fmt::format("\"{}\" belongs inside \"compare\", as an object with the "
                                     "mode: {}",
                                     key, example));
  }
}

// Every implementation needs an expectation, except the one an equivalence check compares against
// (`against`), which is never compared with itself.
void parse_expect(const ObjectReader& check, std::vector<std::string> impls,
                  const std::string& against, CheckDecl& decl) {
  auto& out = decl.expect;
  const Json& node = check.required("expect");
  const std::string path = check.child("expect");
  if (!node.is_object()) check.fail(path, "expected an object: implementation -> outcome");
  const std::vector<std::string> all = impls;
  impls.erase(std::remove(impls.begin(), impls.end(), against), impls.end());
  for (const auto& item : node.items()) {
    const std::string ipath = path + Fields::at(item.key());
    if (!against.empty() && item.key() == against) {
      check.fail(ipath, fmt::format("\"{}\" is what this check compares against; it is "
                                    "not compared with itself, so it takes no expectation",
                                    against));
    }
    if (std::find(all.begin(), all.end(), item.key()) == all.end()) {
      check.fail(ipath, fmt::format("\"{}\" is not one of this contract's implementations; {}",
                                    item.key(), accepted(all)));
    }
    if (item.value().is_string() && item.value().get<std::string>() == kObserved) {
      decl.observed.insert(item.key());
      continue;
    }
    auto& by_device = out[item.key()];
    if (item.value().is_string()) {
      by_device["any"] = check.parse_enum(item.value().get<std::string>(), ipath,
                                          expectations_or_observed(), "expectation");
      continue;
    }
    std::vector<std::string> keys = {"any"};
    for (const auto& d : device_names()) keys.push_back(d);
    ObjectReader per_device(item.value(), ipath, check.file(), keys);
    for (const auto& dev : item.value().items()) {
      if (!dev.value().is_string()) {
        check.fail(per_device.child(dev.key()),
                   fmt::format("expected one of: {}", fmt::join(expectation_names(), ", ")));
      }
      by_device[dev.key()] =
          check.parse_enum(dev.value().get<std::string>(), per_device.child(dev.key()),
                           expectations(), "expectation");
    }
  }
  for (const auto& impl : impls) {
    if (decl.observed.count(impl)) continue;
    if (!out.count(impl)) {
      check.fail(path,
                 fmt::format("no expectation for implementation \"{}\"; give one of {} (or an "
                             "object keyed by device)",
                             impl, fmt::join(expectations_or_observed().names, ", ")));
    }
    const auto& by_device = out[impl];
    if (!by_device.count("any")) {
      for (const auto& d : device_names()) {
        if (!by_device.count(d)) {
          check.fail(
              path + Fields::at(impl),
              fmt::format("no expectation for device \"{}\"; add it or an \"any\" entry", d));
        }
      }
    }
  }
}

// A schema op ("aten::layer_norm") takes "inputs" (and optionally "outputs" and "sequence"); a
// registry op takes none of them.
void parse_schema_inputs(const ObjectReader& top, const Json& doc, Contract& c) {
  const bool schema = is_schema_name(c.op);
  const char* given = top.has("inputs")     ? "inputs"
                      : top.has("outputs")  ? "outputs"
                      : top.has("sequence") ? "sequence"
                                            : nullptr;
  if (!schema && given) {
    top.fail(top.child(given),
             fmt::format("\"{}\" describes a schema op's arguments: it applies only to an op "
                         "named by its schema, \"aten::NAME\" or \"aten::NAME.OVERLOAD\"",
                         given));
  }
  if (!schema) return;
  if (!top.has("inputs")) {
    top.fail("/op", fmt::format("schema op \"{}\" needs \"inputs\": each argument's shape, "
                                "dtype, values and batch dim, or its value",
                                c.op));
  }
  try {
    c.inputs = read_input_spec(doc);
  } catch (const FieldError& e) {
    top.fail(e.pointer().empty() ? "/" : e.pointer(), e.what());
  }
  check_input_spec(*c.inputs, c);
}

}  // namespace

const std::vector<std::string>& compare_mode_names() {
  return compare_modes().names;
}
const std::vector<std::string>& expectation_names() {
  return expectations().names;
}
const std::vector<std::string>& device_names() {
  static const std::vector<std::string> names = {"cpu", "cuda"};
  return names;
}
std::string to_string(CompareMode mode) {
  return name_of(compare_modes(), mode);
}
std::string to_string(Expectation e) {
  return name_of(expectations(), e);
}

const std::vector<Json>* AxisDecl::values_for(const std::string& device) const {
  auto it = values_by_device.find(device);
  if (it == values_by_device.end()) it = values_by_device.find("any");
  return it == values_by_device.end() ? nullptr : &it->second;
}

const AxisDecl* SweepDecl::find(const std::string& name) const {
  for (const auto& a : axes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

SweepDecl merge_sweeps(const SweepDecl& base, const SweepDecl& override_) {
  SweepDecl out = base;
  for (const auto& axis : override_.axes) {
    auto it = std::find_if(out.axes.begin(), out.axes.end(),
                           [&](const AxisDecl& a) { return a.name == axis.name; });
    if (it != out.axes.end())
      *it = axis;
    else
      out.axes.push_back(axis);
  }
  return out;
}

Expectation CheckDecl::expected(const std::string& impl, const std::string& device) const {
  auto it = expect.find(impl);
  if (it == expect.end()) return Expectation::unknown;
  auto d = it->second.find(device);
  if (d == it->second.end()) d = it->second.find("any");
  return d == it->second.end() ? Expectation::unknown : d->second;
}

Contract parse_contract(const std::string& text, const std::string& source) {
  const Json doc = parse_json_document(text, source);
  ObjectReader top(doc, "", source,
                   {"name", "op", "description", "implementations", "sweep", "checks", "inputs",
                    "outputs", "sequence"});
  Contract c;
  c.source = source;
  c.sha256 = sha256_hex(text);
  c.text = text;
  c.op = top.required_string("op");
  c.description = top.string("description");
  {
    std::string stem = source.substr(source.find_last_of("/:") + 1);
    stem = stem.substr(0, stem.rfind(".json"));
    c.name = top.string("name", stem);
    // The schema's pattern for names, which case ids and report paths are built from.
    const bool plain = !c.name.empty() && std::all_of(c.name.begin(), c.name.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
    });
    if (!plain) {
      top.fail(top.has("name") ? top.child("name") : "/",
               fmt::format("contract name \"{}\"{} must be letters, digits, '_', '.' or '-' "
                           "(one at least)",
                           c.name, top.has("name") ? "" : " (the file's name; give a \"name\")"));
    }
  }
  c.implementations = top.strings("implementations");
  top.required("implementations");
  if (c.implementations.empty())
    top.fail(top.child("implementations"), "name at least one implementation");
  {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < c.implementations.size(); ++i) {
      if (!seen.insert(c.implementations[i]).second) {
        top.fail(fmt::format("/implementations/{}", i),
                 fmt::format("implementation \"{}\" is listed twice", c.implementations[i]));
      }
    }
  }
  if (top.has("sweep")) c.sweep = parse_sweep(top.raw("sweep"), top.child("sweep"), source);

  const Json& checks = top.required("checks");
  if (!checks.is_array() || checks.empty())
    top.fail("/checks", "expected a non-empty array of checks");
  std::set<std::string> names;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string path = fmt::format("/checks/{}", i);
    refuse_loose_comparison_fields(checks[i], path, source);
    ObjectReader r(checks[i], path, source,
                   {"name", "kind", "description", "compare", "sweep", "against", "expect"});
    CheckDecl check;
    check.json_path = path;
    check.kind = r.enumerated("kind", check_kinds(), "check kind");
    check.name = r.string("name", to_string(check.kind));
    if (!names.insert(check.name).second) {
      r.fail(path,
             fmt::format("check name \"{}\" is used twice; give each check a distinct \"name\"",
                         check.name));
    }
    check.description = r.string("description");
    if (r.has("compare"))
      check.compare = parse_comparison(r.raw("compare"), r.child("compare"), source);
    if (r.has("sweep")) check.sweep = parse_sweep(r.raw("sweep"), r.child("sweep"), source);
    check.against = r.string("against");
    if (compares_implementations(check.kind)) {
      if (check.against.empty()) {
        r.fail(path, fmt::format("check kind {} needs \"against\": one of {}",
                                 to_string(check.kind), fmt::join(c.implementations, ", ")));
      }
      if (std::find(c.implementations.begin(), c.implementations.end(), check.against) ==
          c.implementations.end()) {
        r.fail(r.child("against"),
               fmt::format("\"{}\" is not one of this contract's implementations; {}",
                           check.against, accepted(c.implementations)));
      }
      if (c.implementations.size() < 2) {
        r.fail(path, fmt::format("check kind {} needs a second implementation to compare with "
                                 "\"against\"",
                                 to_string(check.kind)));
      }
    } else if (!check.against.empty()) {
      std::vector<std::string> kinds;
      for (CheckKind k : all_check_kinds()) {
        if (compares_implementations(k)) kinds.push_back(to_string(k));
      }
      r.fail(r.child("against"),
             fmt::format("\"against\" applies only to check kinds {}", fmt::join(kinds, ", ")));
    }
    parse_expect(r, c.implementations, check.against, check);
    c.checks.push_back(std::move(check));
  }
  parse_schema_inputs(top, doc, c);
  return c;
}

Contract load_contract_file(const std::string& path) {
  return parse_contract(read_file_text(path, "a contract", kMaxContractBytes), path);
}

}  // namespace samebits
