// The tool, plan and settings records both ways (nlohmann's to_json/from_json, found by ADL): the
// one place their JSON layout is written down, read back leniently for reports of schema 2.x.
#include "reports/model/run_records.h"

#include "common/json_fields.h"
#include "reports/model/case_json.h"

namespace samebits {
namespace {

constexpr const char* kDefaultSuite = "embedded default suite";

Json optional_text(const std::optional<std::string>& v) {
  return v ? Json(*v) : Json(nullptr);
}

std::optional<std::string> optional_text(const Fields& f, const std::string& key) {
  if (!f.has(key)) return std::nullopt;
  return f.text(key);
}

}  // namespace

void to_json(Json& j, const ToolInfo& t) {
  j = Json{{"name", t.name},
           {"version", t.version},
           {"git_commit", t.git_commit},
           {"git_dirty", t.git_dirty}};
}

void from_json(const Json& j, ToolInfo& t) {
  const Fields f(j);
  t.name = f.text("name", "samebits");
  t.version = f.text("version");
  t.git_commit = f.text("git_commit", f.text("commit"));  // "commit" before 2.0
  t.git_dirty = f.text("git_dirty", "unknown");
}

void to_json(Json& j, const RunPlan& p) {
  j = Json{{"cases", p.cases}, {"sha256", p.sha256}};
}

void from_json(const Json& j, RunPlan& p) {
  const Fields f(j);
  p.cases = f.number<std::int64_t>("cases");
  p.sha256 = f.text("sha256");
}

void to_json(Json& j, const RunSettings& s) {
  j = Json::object();
  j["device"] = s.device;
  j["seed"] = seed_to_json(s.seed);
  j["filter"] = optional_text(s.filter);
  j["case"] = optional_text(s.case_id);
  j["shard"] = optional_text(s.shard);
  j["contracts"] = s.contracts.empty() ? Json(kDefaultSuite) : Json(s.contracts);
  j["platform"] = s.platform;
  j["observed_platform"] = optional_text(s.observed_platform);
  if (s.nearest_platform) {
    j["nearest_platform"] =
        Json{{"name", s.nearest_platform->name}, {"differences", s.nearest_platform->differences}};
  }
  j["kernel_capture"] = s.kernel_capture;
  if (s.jobs) j["jobs"] = *s.jobs;
  if (s.resumed) {
    j["resumed"] = Json{{"journal", s.resumed->journal}, {"cases", s.resumed->cases}};
    if (s.resumed->faults > 0) j["resumed"]["faults"] = s.resumed->faults;
  }
  if (s.journal_error) j["journal_error"] = *s.journal_error;
  if (s.context_broken) {
    const BrokenContext& b = *s.context_broken;
    j["context_broken"] = Json{{"case", b.case_id},
                               {"reason", b.reason},
                               {"cases_run", b.cases_run},
                               {"cases_planned", b.cases_planned}};
  }
  if (s.interrupted) {
    const Interruption& i = *s.interrupted;
    j["interrupted"] = Json{{"signal", i.signal},
                            {"cases_run", i.cases_run},
                            {"cases_planned", i.cases_planned},
                            {"journal", optional_text(i.journal)}};
  }
  if (s.kernel_capture_dropped_records) {
    j["kernel_capture_dropped_records"] = *s.kernel_capture_dropped_records;
  }
  if (s.isolate) {
    j["isolate"] =
        Json{{"children", s.isolate->children},
             {"case_timeout_s",
              s.isolate->case_timeout_s ? Json(*s.isolate->case_timeout_s) : Json(nullptr)}};
  }
  if (!s.merged_from.empty()) {
    Json shares = Json::array();
    for (const auto& m : s.merged_from) {
      shares.push_back(Json{{"report", m.report}, {"shard", optional_text(m.shard)}});
    }
    j["merged_from"] = std::move(shares);
  }
}

void from_json(const Json& j, RunSettings& s) {
  const Fields f(j);
  s.device = f.text("device");
  s.seed = f.has("seed") ? seed_from_json(f) : 0;
  s.filter = optional_text(f, "filter");
  s.case_id = optional_text(f, "case");
  s.shard = optional_text(f, "shard");
  s.contracts.clear();
  if (f.has("contracts") && f.json().at("contracts").is_array()) {
    s.contracts = f.as<std::vector<std::string>>("contracts");
  } else if (f.text("contracts", kDefaultSuite) != kDefaultSuite) {
    s.contracts = {f.text("contracts")};
  }
  s.platform = f.has("platform") ? f.as<PlatformFingerprint>("platform") : PlatformFingerprint{};
  s.observed_platform = optional_text(f, "observed_platform");
  s.nearest_platform.reset();
  if (f.has("nearest_platform")) {
    s.nearest_platform = within("/nearest_platform", [&] {
      const Fields n(j.at("nearest_platform"));
      return NearestPlatform{n.text("name"), n.as<std::vector<std::string>>("differences")};
    });
  }
  s.kernel_capture = f.text("kernel_capture");
  s.jobs = f.has("jobs") ? std::optional<int>(f.number<int>("jobs")) : std::nullopt;
  s.resumed.reset();
  if (f.has("resumed")) {
    s.resumed = within("/resumed", [&] {
      const Fields r(j.at("resumed"));
      return ResumedRun{r.text("journal"), r.number<std::int64_t>("cases"),
                        r.number<std::int64_t>("faults")};
    });
  }
  s.journal_error = optional_text(f, "journal_error");
  s.context_broken.reset();
  if (f.has("context_broken")) {
    s.context_broken = within("/context_broken", [&] {
      const Fields b(j.at("context_broken"));
      return BrokenContext{b.text("case"), b.text("reason"), b.number<std::int64_t>("cases_run"),
                           b.number<std::int64_t>("cases_planned")};
    });
  }
  s.interrupted.reset();
  if (f.has("interrupted")) {
    s.interrupted = within("/interrupted", [&] {
      const Fields i(j.at("interrupted"));
      return Interruption{i.text("signal"), i.number<std::int64_t>("cases_run"),
                          i.number<std::int64_t>("cases_planned"), optional_text(i, "journal")};
    });
  }
  s.kernel_capture_dropped_records =
      f.has("kernel_capture_dropped_records")
          ? std::optional<std::uint64_t>(f.number<std::uint64_t>("kernel_capture_dropped_records"))
          : std::nullopt;
  s.isolate.reset();
  if (f.has("isolate")) {
    s.isolate = within("/isolate", [&] {
      const Fields i(j.at("isolate"));
      return IsolatedRun{i.number<std::int64_t>("children"),
                         i.has("case_timeout_s")
                             ? std::optional<double>(i.number<double>("case_timeout_s"))
                             : std::nullopt};
    });
  }
  s.merged_from.clear();
  if (f.has("merged_from")) {
    const Json& shares = f.array("merged_from");
    for (std::size_t i = 0; i < shares.size(); ++i) {
      s.merged_from.push_back(within("/merged_from/" + std::to_string(i), [&] {
        const Fields m(shares[i]);
        return MergedShare{m.text("report"), optional_text(m, "shard")};
      }));
    }
  }
}

}  // namespace samebits
