// Baselines both ways: one to_json/from_json per record (outputs, case, baseline), every error
// naming the file, the JSON path and the accepted values, and the file's one-entry-per-line text.
#include "reports/model/baseline.h"

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_text.h"
#include "common/json_fields.h"
#include "contracts/embedded_suite.h"

namespace samebits {
namespace {

// A case's recorded verdict: holds or violated.
Expectation outcome_of(const Json& v) {
  if (v == "holds") return Expectation::holds;
  if (v == "violated") return Expectation::violated;
  throw FieldError("", fmt::format("expected \"holds\" or \"violated\", got {}", v.dump()));
}

// A check's recorded outcome: a verdict, or "varies" (seen both ways on this platform), kept as
// Expectation::unknown, which never gates.
constexpr const char* kVaries = "varies";
Expectation check_outcome_of(const Json& v) {
  if (v == kVaries) return Expectation::unknown;
  if (v == "holds" || v == "violated") return outcome_of(v);
  throw FieldError(
      "", fmt::format("expected \"holds\", \"violated\" or \"{}\", got {}", kVaries, v.dump()));
}

std::vector<OutputDigests> outputs_of(const Json& a) {
  if (!a.is_array()) throw FieldError("", "expected an array of [name, sha, sha]");
  std::vector<OutputDigests> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.push_back(within(fmt::format("/{}", i), [&] { return a[i].get<OutputDigests>(); }));
  }
  return out;
}

}  // namespace

void to_json(Json& j, const OutputDigests& o) {
  j = Json::array({o.name, o.baseline_sha256, o.variant_sha256});
}

void from_json(const Json& j, OutputDigests& o) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_string() || !j[1].is_string() ||
      !j[2].is_string()) {
    throw FieldError("", "expected [name, baseline_sha256, variant_sha256]");
  }
  o = {j[0].get<std::string>(), j[1].get<std::string>(), j[2].get<std::string>()};
}

void to_json(Json& j, const CaseRecord& r) {
  j = Json{{"verdict", to_string(r.verdict)}, {"outputs", r.outputs}};
  if (r.varies) j["varies"] = true;
  if (!r.also_seen.empty()) j["also_seen"] = r.also_seen;
}

void from_json(const Json& j, CaseRecord& r) {
  const Fields f(j);
  f.only({"verdict", "outputs", "also_seen", "varies"});
  r.verdict = within("/verdict", [&] { return outcome_of(f.required("verdict")); });
  r.outputs = within("/outputs", [&] { return outputs_of(f.required("outputs")); });
  r.also_seen.clear();
  if (f.has("also_seen")) {
    const Json& also = f.array("also_seen");
    for (std::size_t i = 0; i < also.size(); ++i) {
      r.also_seen.push_back(
          within(fmt::format("/also_seen/{}", i), [&] { return outputs_of(also[i]); }));
    }
  }
  // Digests of several runs: it varies, whether or not the file said so (baselines before 1.2).
  r.varies = f.flag("varies") || !r.also_seen.empty();
}

void to_json(Json& j, const Baseline& b) {
  j = Json{{"schema", "samebits.baseline"},
           {"schema_version", kBaselineSchemaVersion},
           {"name", b.name},
           {"platform", b.platform},
           {"recorded", b.recorded}};
  Json checks = Json::object();
  for (const auto& [key, outcome] : b.checks)
    checks[key] = outcome == Expectation::unknown ? kVaries : to_string(outcome);
  j["checks"] = checks;
  if (!b.cases.empty()) j["cases"] = b.cases;
}

void from_json(const Json& j, Baseline& b) {
  const Fields f(j);
  f.only({"schema", "schema_version", "name", "platform", "recorded", "checks", "cases"});
  if (f.text("schema") != "samebits.baseline") {
    throw FieldError("/schema",
                     "expected \"samebits.baseline\" (is this a report? `samebits baseline "
                     "write REPORT -o FILE` makes a baseline of it)");
  }
  const std::string version = f.text("schema_version");
  if (version.rfind("1.", 0) != 0) {
    throw FieldError(
        "/schema_version",
        fmt::format("version {} is not one this samebits reads; accepted: 1.x", version));
  }
  f.required("name");
  b.name = f.text("name");
  b.platform = f.as<PlatformFingerprint>("platform");
  b.recorded = f.has("recorded") ? f.required("recorded") : Json::object();
  const Json& checks = f.required("checks");
  if (!checks.is_object())
    throw FieldError("/checks", "expected an object: contract/check/impl -> outcome");
  b.checks.clear();
  for (const auto& item : checks.items()) {
    b.checks[item.key()] =
        within("/checks" + Fields::at(item.key()), [&] { return check_outcome_of(item.value()); });
  }
  b.cases.clear();
  if (!f.has("cases")) return;
  const Json& cases = f.required("cases");
  if (!cases.is_object()) throw FieldError("/cases", "expected an object: case id -> record");
  for (const auto& item : cases.items()) {
    b.cases[item.key()] =
        within("/cases" + Fields::at(item.key()), [&] { return item.value().get<CaseRecord>(); });
  }
}

std::string check_key(const std::string& contract, const std::string& check,
                      const std::string& impl) {
  return contract + "/" + check + "/" + impl;
}

Baseline parse_baseline(const std::string& text, const std::string& source) {
  const Json doc = parse_json_document(text, source);
  try {
    Baseline b = within("", [&] { return doc.get<Baseline>(); });
    b.source = source;
    return b;
  } catch (const FieldError& e) {
    throw_contract_error(source, e.pointer().empty() ? "/" : e.pointer(), e.what());
  }
}

Baseline load_baseline_file(const std::string& path) {
  return parse_baseline(read_file_text(path, "the baseline"), path);
}

std::vector<Baseline> embedded_baselines() {
  std::vector<Baseline> out;
  for (const auto& file : embedded_observations()) {
    out.push_back(parse_baseline(file.text, "embedded:observed/" + file.name));
  }
  return out;
}

std::string baseline_file_text(const Baseline& baseline) {
  const auto dump = [](const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  };
  const Json j = baseline;
  std::string out = "{\n";
  bool first = true;
  for (const auto& item : j.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + dump(Json(item.key())) + ": ";
    const Json& v = item.value();
    if ((item.key() == "checks" || item.key() == "cases") && v.is_object() && !v.empty()) {
      out += "{\n";
      bool first_entry = true;
      for (const auto& entry : v.items()) {
        if (!first_entry) out += ",\n";
        first_entry = false;
        out += "    " + dump(Json(entry.key())) + ": " + dump(entry.value());
      }
      out += "\n  }";
    } else {
      out += dump(v);
    }
  }
  return out + "\n}\n";
}

}  // namespace samebits
