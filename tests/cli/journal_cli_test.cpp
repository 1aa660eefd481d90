// `samebits run` stopped by SIGTERM mid-run: the partial report and the journal keep what finished,
// and `--resume` runs the rest into the report an uninterrupted run writes. Bad journals: exit 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// 40 cases of a few hundred milliseconds each on the CPU: long enough to stop half-way.
constexpr const char* kSlow =
    R"({"name": "slow", "op": "sum", "implementations": ["aten", "samebits"],
  "sweep": {"rows": [64], "N": {"range": [20000, 20019]}, "dim": [1]},
  "checks": [{"kind": "batch_invariance", "sweep": {"batch": [8]},
              "expect": {"aten": "observed", "samebits": "holds"}}]})";

// What must not depend on being interrupted: each case's id, verdict, reason and digests, in order,
// and every check's outcome.
Json essentials(const Json& report) {
  Json out = {{"cases", Json::array()}, {"checks", report["checks"]}};
  for (const auto& c : report["cases"]) {
    out["cases"].push_back({c["id"], c["verdict"], c.value("reason", ""), c["outputs"]});
  }
  return out;
}

class JournalCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    slow = dir / "slow.json";
    write_text(slow, kSlow);
  }
  std::string slow_run(const fs::path& report_path) const {
    return "run " + quoted(slow) + " --device cpu --report " + quoted(report_path);
  }
  // Starts a run, sends SIGTERM once its journal holds `lines` lines; returns its exit status.
  int interrupted_run(const fs::path& report_path, std::size_t lines) const {
    return terminated_run(slow_run(report_path), report_path.string() + ".journal", lines);
  }
  fs::path slow;
};

TEST_F(JournalCliTest, InterruptedRunResumesToTheSameReport) {
  const fs::path full = dir / "full.json", part = dir / "part.json";
  const Result whole = samebits(slow_run(full));
  ASSERT_EQ(whole.exit_code, 0) << explain(whole);
  EXPECT_FALSE(fs::exists(full.string() + ".journal")) << "a finished run removes its journal";

  const int status = interrupted_run(part, 4);  // the header and 3 cases
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir / "err.txt");
  EXPECT_NE(read_text(dir / "err.txt").find("interrupted by SIGTERM after "), std::string::npos);
  const Json partial = Json::parse(read_text(part));
  const auto ran = partial["cases"].size();
  EXPECT_GE(ran, 3u);
  EXPECT_LT(ran, 40u) << "the run must have stopped early";
  EXPECT_EQ(partial["settings"]["interrupted"]["signal"], "SIGTERM");
  EXPECT_EQ(partial["summary"]["exit_code"], 3);
  const fs::path journal = part.string() + ".journal";
  EXPECT_EQ(line_count(journal), 1 + ran) << "the header and every finished case";
  std::ofstream(journal, std::ios::app) << R"({"case": {"id": "cut short by a kill)";

  const Result resumed = samebits(slow_run(part) + " --resume " + quoted(journal));
  ASSERT_EQ(resumed.exit_code, 0) << explain(resumed);
  const Json final_report = Json::parse(read_text(part));
  EXPECT_EQ(final_report["settings"]["resumed"]["cases"], ran);
  EXPECT_EQ(essentials(final_report), essentials(Json::parse(read_text(full))))
      << "the resumed report must equal the uninterrupted one";
  EXPECT_FALSE(fs::exists(journal)) << "the journal has served";
}

// The control: resumed cases come from the journal as written there. A digest altered in the
// journal reaches the final report, which then differs from the uninterrupted one.
TEST_F(JournalCliTest, ResumedCasesComeFromTheJournal) {
  const fs::path full = dir / "full.json", part = dir / "part.json";
  ASSERT_EQ(samebits(slow_run(full)).exit_code, 0);
  interrupted_run(part, 3);
  const fs::path journal = part.string() + ".journal";
  std::string text = read_text(journal);
  const std::string key = "\"baseline_sha256\":\"";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text.substr(0, 500);
  text[at + key.size()] = text[at + key.size()] == '0' ? '1' : '0';
  write_text(journal, text);
  const Result resumed = samebits(slow_run(part) + " --resume " + quoted(journal));
  ASSERT_EQ(resumed.exit_code, 0) << explain(resumed);
  EXPECT_NE(essentials(Json::parse(read_text(part))), essentials(Json::parse(read_text(full))));
}

TEST_F(JournalCliTest, JournalOfAnotherRunIsRefused) {
  const fs::path part = dir / "part.json";
  interrupted_run(part, 3);
  const fs::path journal = part.string() + ".journal";
  ASSERT_TRUE(fs::exists(journal));
  const Result r = samebits(slow_run(part) + " --seed 7 --resume " + quoted(journal));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("the journal belongs to another run"), std::string::npos) << explain(r);
}

TEST_F(JournalCliTest, CorruptedJournalIsRefusedWithItsLine) {
  const fs::path journal = dir / "bad.journal";
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"{\"schema\": \"samebits.journal\", \"schema_version\": \"1.0.0\", \"plan_sha256\": "
            "\"x\", \"seed\": \"0\", \"device\": \"cpu\", \"cases\": 40}\n{\"case\": 5}\n",
            "bad.journal: line 2"},
           {"{\"case\": {}}\n", "bad.journal: line 1: expected a samebits journal header"},
           {"not json at all\n", "bad.journal: line 1"},
           {"", "an empty journal"}}) {
    write_text(journal, text);
    const Result r = samebits(slow_run(report) + " --resume " + quoted(journal));
    EXPECT_EQ(r.exit_code, 2) << explain(r);
    EXPECT_NE(r.err.find(needle), std::string::npos) << needle << "\n" << explain(r);
  }
}

}  // namespace
}  // namespace samebits
