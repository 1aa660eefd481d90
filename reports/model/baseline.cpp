// Reading baselines: what one platform was seen to do, with every error naming the file, the JSON
// path and the accepted values, as for contracts.
#include "reports/model/baseline.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "common/file_text.h"
#include "common/object_reader.h"
#include "contracts/embedded_suite.h"

namespace samebits {
namespace {

using json_reading::escape_pointer;
using json_reading::ObjectReader;

Expectation outcome(const Json& v, const std::string& source, const std::string& path) {
  if (v == "holds") return Expectation::holds;
  if (v == "violated") return Expectation::violated;
  throw_contract_error(source, path,
                       fmt::format("expected \"holds\" or \"violated\", got {}", v.dump()));
}

std::vector<OutputDigests> parse_outputs(const Json& outputs, const std::string& source,
                                         const std::string& path) {
  if (!outputs.is_array()) {
    throw_contract_error(source, path, "expected an array of [name, sha, sha]");
  }
  std::vector<OutputDigests> out;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Json& o = outputs[i];
    if (!o.is_array() || o.size() != 3 || !o[0].is_string() || !o[1].is_string() ||
        !o[2].is_string()) {
      throw_contract_error(source, fmt::format("{}/{}", path, i),
                           "expected [name, baseline_sha256, variant_sha256]");
    }
    out.push_back({o[0].get<std::string>(), o[1].get<std::string>(), o[2].get<std::string>()});
  }
  return out;
}

CaseRecord parse_case(const Json& node, const std::string& source, const std::string& path) {
  ObjectReader r(node, path, source, {"verdict", "outputs", "also_seen", "varies"});
  CaseRecord record;
  record.verdict = outcome(r.required("verdict"), source, r.child("verdict"));
  record.outputs = parse_outputs(r.required("outputs"), source, r.child("outputs"));
  if (r.has("also_seen")) {
    const Json& also = r.raw("also_seen");
    if (!also.is_array()) r.fail(r.child("also_seen"), "expected an array of output lists");
    for (std::size_t i = 0; i < also.size(); ++i) {
      record.also_seen.push_back(
          parse_outputs(also[i], source, fmt::format("{}/{}", r.child("also_seen"), i)));
    }
  }
  if (r.has("varies")) {
    const Json& varies = r.raw("varies");
    if (!varies.is_boolean()) r.fail(r.child("varies"), "expected true or false");
    record.varies = varies.get<bool>();
  }
  // Digests of several runs: it varies, whether or not the file said so (baselines before 1.2).
  record.varies = record.varies || !record.also_seen.empty();
  return record;
}

}  // namespace

std::string check_key(const std::string& contract, const std::string& check,
                      const std::string& impl) {
  return contract + "/" + check + "/" + impl;
}

Baseline parse_baseline(const std::string& text, const std::string& source) {
  const Json doc = parse_json_document(text, source);
  ObjectReader top(doc, "", source,
                   {"schema", "schema_version", "name", "platform", "recorded", "checks", "cases"});
  if (top.string("schema") != "samebits.baseline") {
    top.fail("/schema",
             "expected \"samebits.baseline\" (is this a report? `samebits baseline "
             "write REPORT -o FILE` makes a baseline of it)");
  }
  const std::string version = top.required_string("schema_version");
  if (version.rfind("1.", 0) != 0) {
    top.fail("/schema_version", fmt::format("version {} is not one this samebits reads; accepted: "
                                            "1.x",
                                            version));
  }
  Baseline b;
  b.source = source;
  b.name = top.required_string("name");
  b.platform = fingerprint_from_json(top.required("platform"), source, "/platform");
  if (top.has("recorded")) b.recorded = top.raw("recorded");
  const Json& checks = top.required("checks");
  if (!checks.is_object())
    top.fail("/checks", "expected an object: contract/check/impl -> outcome");
  for (const auto& item : checks.items()) {
    b.checks[item.key()] = outcome(item.value(), source, "/checks/" + escape_pointer(item.key()));
  }
  if (top.has("cases")) {
    const Json& cases = top.raw("cases");
    if (!cases.is_object()) top.fail("/cases", "expected an object: case id -> record");
    for (const auto& item : cases.items()) {
      b.cases[item.key()] =
          parse_case(item.value(), source, "/cases/" + escape_pointer(item.key()));
    }
  }
  return b;
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

}  // namespace samebits
