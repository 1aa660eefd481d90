// `samebits run` stopped by SIGTERM mid-run: the journal keeps what finished for `--resume`, or the
// run says it could not. Bad journals, and a journal another run is writing: exit 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

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
// journal reaches the final report (a case run again would carry the digest it computes).
TEST_F(JournalCliTest, ResumedCasesComeFromTheJournal) {
  const fs::path part = dir / "part.json";
  interrupted_run(part, 3);
  const fs::path journal = part.string() + ".journal";
  const auto journal_lines = lines(read_text(journal));
  ASSERT_GE(journal_lines.size(), 2u) << read_text(dir / "err.txt");
  Json first_case = Json::parse(journal_lines[1])["case"];
  std::string& digest = first_case["outputs"][0]["baseline_sha256"].get_ref<std::string&>();
  const std::string computed = digest;
  digest[0] = digest[0] == '0' ? '1' : '0';
  std::string text = read_text(journal);
  text.replace(text.find(computed), computed.size(), digest);
  write_text(journal, text);
  const Result resumed = samebits(slow_run(part) + " --resume " + quoted(journal));
  ASSERT_EQ(resumed.exit_code, 0) << explain(resumed);
  const Json final_report = Json::parse(read_text(part));
  EXPECT_EQ(final_report["settings"]["resumed"]["cases"], journal_lines.size() - 1);
  ASSERT_EQ(final_report["cases"][0]["id"], first_case["id"]);
  EXPECT_EQ(final_report["cases"][0]["outputs"][0]["baseline_sha256"], digest);
  EXPECT_NE(digest, computed);
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

// --report into a folder not there yet: the journal's folder is the report's, made before the run,
// so a stopped run's journal is there and --resume finishes it (the journal once was not kept while
// the run said it was, and --resume exited 2).
TEST_F(JournalCliTest, AReportIntoANewFolderKeepsItsJournal) {
  const fs::path part = dir / "new" / "deeper" / "part.json";
  const fs::path journal = part.string() + ".journal";
  const int status = terminated_run(slow_run(part), journal, 3, "", std::chrono::seconds(60));
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_text(dir / "err.txt");
  ASSERT_TRUE(fs::exists(journal)) << read_text(dir / "err.txt");
  EXPECT_NE(read_text(dir / "err.txt").find("the journal " + journal.string() + " keeps them"),
            std::string::npos)
      << read_text(dir / "err.txt");
  const Result resumed = samebits(slow_run(part) + " --resume " + quoted(journal));
  ASSERT_EQ(resumed.exit_code, 0) << explain(resumed);
  EXPECT_EQ(Json::parse(read_text(part))["cases"].size(), 40u);
}

// Two runs given one --report share one journal: the second is refused before it runs anything,
// plain or --isolate, and the first keeps its journal and finishes (the first to end once deleted
// the journal under the other). The first is held (SIGSTOP) while the others try, so it is still
// mid-run however long they take to start.
TEST_F(JournalCliTest, ASecondRunOnTheSameJournalIsRefused) {
  const fs::path journal = report.string() + ".journal";
  const pid_t first = start(slow_run(report));
  if (!await_journal(journal, 2, "", std::chrono::seconds(60))) {
    ::kill(first, SIGKILL);
    wait_status(first);
    FAIL() << "the first run kept no journal: " << read_text(dir / "err.txt");
  }
  ::kill(first, SIGSTOP);
  for (const std::string extra : {"", " --isolate"}) {
    const Result second = samebits(slow_run(report) + extra);
    EXPECT_EQ(second.exit_code, 2) << extra << explain(second);
    EXPECT_NE(second.err.find(journal.string() + ": another samebits run is writing this journal"),
              std::string::npos)
        << explain(second);
    EXPECT_EQ(second.err.find(" cases from "), std::string::npos) << explain(second);
    EXPECT_TRUE(fs::exists(journal)) << "the first run's journal is left alone";
  }
  ::kill(first, SIGCONT);
  const int status = wait_status(first);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << read_text(dir / "err.txt");
  EXPECT_EQ(Json::parse(read_text(report))["cases"].size(), 40u);
  EXPECT_FALSE(fs::exists(journal)) << "the journal has served";
  const Result after = samebits(slow_run(report) + " --dry-run");
  EXPECT_EQ(after.exit_code, 0) << "the lock ends with its run: " << explain(after);
}

// A journal that could not be kept whole (its writes refused past a file-size limit, as a full
// disk would): the stopped run says so and does not point at the journal for --resume.
TEST_F(JournalCliTest, AStoppedRunThatKeptNoWholeJournalSaysSo) {
  const fs::path journal = report.string() + ".journal";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    // 512 bytes a file: the journal's header line fits, its first case's does not. Past the limit
    // a write fails (EFBIG) instead of raising SIGXFSZ. The streams go to a pipe, which has no
    // size to limit.
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{512, 512};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::execl(SAMEBITS_CLI, SAMEBITS_CLI, "run", slow.c_str(), "--device", "cpu", "--report",
            report.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::string text;
  std::thread reader([&] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
      if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
      if (n < 0 && errno != EINTR) break;
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const auto size = [&] {
    std::error_code ec;
    return fs::exists(journal, ec) ? fs::file_size(journal, ec) : 0;
  };
  while (size() < 512 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  reader.join();
  ::close(pipe_fds[0]);
  ASSERT_TRUE(WIFEXITED(status)) << status << text;
  EXPECT_EQ(WEXITSTATUS(status), 3) << text;
  EXPECT_NE(text.find("cannot write the journal"), std::string::npos) << text;
  EXPECT_NE(text.find("interrupted by SIGTERM"), std::string::npos) << text;
  EXPECT_EQ(text.find("keeps them"), std::string::npos) << text;
  EXPECT_NE(text.find("no whole journal was kept"), std::string::npos) << text;
}

}  // namespace
}  // namespace samebits
