// A baseline as ordered JSON: the platform, every check's observed outcome, and (unless only
// outcomes were kept) every case's verdict and output digests, one check or case per line.
#include "reports/model/baseline_writer.h"

#include <fmt/format.h>

#include "reports/model/platform.h"

namespace samebits {

Json baseline_to_json(const Baseline& b) {
  Json j;
  j["schema"] = "samebits.baseline";
  j["schema_version"] = kBaselineSchemaVersion;
  j["name"] = b.name;
  j["platform"] = b.platform;
  j["recorded"] = b.recorded;
  Json checks = Json::object();
  for (const auto& [key, outcome] : b.checks) checks[key] = to_string(outcome);
  j["checks"] = checks;
  if (b.cases.empty()) return j;
  Json cases = Json::object();
  const auto outputs_json = [](const std::vector<OutputDigests>& outputs) {
    Json out = Json::array();
    for (const auto& o : outputs) {
      out.push_back(Json::array({o.name, o.baseline_sha256, o.variant_sha256}));
    }
    return out;
  };
  for (const auto& [id, record] : b.cases) {
    cases[id] =
        Json{{"verdict", to_string(record.verdict)}, {"outputs", outputs_json(record.outputs)}};
    if (record.varies) cases[id]["varies"] = true;
    if (record.also_seen.empty()) continue;
    Json also = Json::array();
    for (const auto& outputs : record.also_seen) also.push_back(outputs_json(outputs));
    cases[id]["also_seen"] = also;
  }
  j["cases"] = cases;
  return j;
}

std::string render_baseline(const Json& baseline) {
  const auto dump = [](const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  };
  std::string out = "{\n";
  bool first = true;
  for (const auto& item : baseline.items()) {
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
