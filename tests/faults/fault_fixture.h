// The planted-fault contract run through samebits_with_faults (the CLI fixture's binary here): the
// command lines, the report read back, each case found by its fault, and the report checked
// against reports/report.schema.json.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_fixture.h"

namespace samebits {

// One isolated run's cases: the faulty one(s) and the rest.
class FaultTest : public CliTest {
 protected:
  static std::string planted() {
    return std::string("'") + SAMEBITS_SOURCE_DIR + "/tests/contracts/planted_faults.json'";
  }
  // `run` of the planted contract on `device`, keeping the cases whose fault matches `faults` (an
  // ERE alternative, e.g. "none|abort") and the "after" check's, which run after every fault.
  std::string run_planted(const std::string& device, const std::string& faults) const {
    return run_planted(device, faults, report);
  }
  std::string run_planted(const std::string& device, const std::string& faults,
                          const fs::path& report_path) const {
    return "run " + planted() + " --device " + device + " --report " + quoted(report_path) +
           " --filter '(fault=(" + faults + ")|after)'";
  }
  Json read_report(const fs::path& path) const { return Json::parse(read_text(path)); }
  Json read_report() const { return read_report(report); }

  // The case whose id names this fault (fault=NAME), or null.
  static Json case_with_fault(const Json& r, const std::string& fault) {
    for (const auto& c : r["cases"]) {
      if (c["params"].value("fault", "") == fault && c["check"] == "faults") return c;
    }
    return nullptr;
  }

  // Every case but the faulty one held; the "after" check ran both its cases.
  static void expect_the_rest_held(const Json& r, const std::string& fault) {
    int after = 0;
    for (const auto& c : r["cases"]) {
      if (c["check"] == "after") ++after;
      if (c["params"].value("fault", "") == fault && c["check"] == "faults") continue;
      EXPECT_EQ(c["verdict"], "holds") << c.dump();
    }
    EXPECT_EQ(after, 2) << "the cases after the fault ran";
  }

  // Exit 0 when the report is valid against the schema; the message otherwise.
  std::string schema_errors(const fs::path& path) const {
    const fs::path out = dir / "schema.txt";
    const std::string command = std::string("'") + SAMEBITS_PYTHON + "' '" + SAMEBITS_SOURCE_DIR +
                                "/scripts/check_schemas.py' '" + SAMEBITS_SOURCE_DIR +
                                "/reports/report.schema.json' '" + path.string() + "' >'" +
                                out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return "";
    if (code == 77) {  // jsonschema missing (scripts/bootstrap installs it): said, not failed
      std::cerr << "note: jsonschema is not installed; the report's schema is not checked\n";
      return "";
    }
    return "exit " + std::to_string(code) + ": " + read_text(out);
  }
};

}  // namespace samebits
