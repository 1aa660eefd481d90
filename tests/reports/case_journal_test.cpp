// The journal: fault lines (`run --isolate`'s crashed cases) read back, the later line of an id
// counting, bad ones refused; one writer (its lock), its folder made when missing.
#include "reports/model/case_journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/errors.h"
#include "tests/support/text_files.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace case_journal_test_file {}
using namespace case_journal_test_file;
namespace case_journal_test_file {

namespace fs = std::filesystem;

class CaseJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = fs::path(::testing::TempDir()) /
           ("samebits_journal_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove(path); }
  static CaseResult held(const std::string& id) {
    CaseResult c;
    c.id = id;
    c.contract = "planted_faults";
    c.check = "faults";
    c.impl = "aten";
    c.device = "cpu";
    c.verdict = Verdict::holds;
    return c;
  }
  fs::path path;
};

TEST_F(CaseJournalTest, FaultLinesReadBack) {
  {
    CaseJournal j(path.string(), JournalHeader{"digest", 7, "cpu", 3}, false);
    j.append(held("a"));
    j.append(CaseFault{"b", Verdict::crashed, "killed by SIGSEGV\nlast words", 12.5});
    j.append(CaseFault{"c", Verdict::timed_out, "ran past --case-timeout", 2000});
  }
  const JournalContents in = read_journal(path.string());
  ASSERT_EQ(in.cases.size(), 1u);
  ASSERT_EQ(in.faults.size(), 2u);
  EXPECT_EQ(in.faults[0].id, "b");
  EXPECT_EQ(in.faults[0].verdict, Verdict::crashed);
  EXPECT_EQ(in.faults[0].reason, "killed by SIGSEGV\nlast words");
  EXPECT_EQ(in.faults[0].duration_ms, 12.5);
  EXPECT_EQ(in.faults[1].verdict, Verdict::timed_out);
}

// A case recorded from its fault replaces the fault; a fault noted after a case replaces the case.
TEST_F(CaseJournalTest, TheLaterLineOfAnIdCounts) {
  {
    CaseJournal j(path.string(), JournalHeader{"digest", 7, "cpu", 3}, false);
    j.append(CaseFault{"b", Verdict::crashed, "died", 1});
    CaseResult b = held("b");
    b.verdict = Verdict::crashed;
    j.append(b);
    j.append(held("c"));
    j.append(CaseFault{"c", Verdict::timed_out, "killed", 1});
  }
  const JournalContents in = read_journal(path.string());
  ASSERT_EQ(in.cases.size(), 1u);
  EXPECT_EQ(in.cases[0].id, "b");
  EXPECT_EQ(in.cases[0].verdict, Verdict::crashed);
  ASSERT_EQ(in.faults.size(), 1u);
  EXPECT_EQ(in.faults[0].id, "c");
}

TEST_F(CaseJournalTest, ABadFaultLineIsRefusedWithItsLine) {
  const std::string header =
      R"({"schema": "samebits.journal", "schema_version": "1.1.0", "plan_sha256": "x", )"
      R"("seed": "0", "device": "cpu", "cases": 2})"
      "\n";
  test_support::write_text(
      path, header + R"({"fault": {"id": "b", "verdict": "holds", "reason": "", "duration_ms": 0}})"
                     "\n");
  try {
    read_journal(path.string());
    FAIL() << "read a fault whose verdict is holds";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2: /fault/verdict: \"holds\" is not one of: "
                                         "crashed, timed_out"),
              std::string::npos)
        << e.what();
  }
  test_support::write_text(path, header + R"({"fault": {"id": 5}})"
                                          "\n");
  EXPECT_THROW(read_journal(path.string()), ContractError);
}

// One writer a journal: a second lock, even from this process, is refused naming the option and
// the path; once the first ends, the next is taken.
TEST_F(CaseJournalTest, ASecondLockIsRefusedUntilTheFirstEnds) {
  {
    const JournalLock first(path.string(), "--journal");
    try {
      const JournalLock second(path.string(), "--journal");
      FAIL() << "two locks on one journal";
    } catch (const ContractError& e) {
      EXPECT_NE(std::string(e.what()).find("--journal " + path.string() +
                                           ": another samebits run is writing this journal"),
                std::string::npos)
          << e.what();
    }
    CaseJournal j(path.string(), JournalHeader{"digest", 7, "cpu", 3}, false);
    j.append(held("a"));
  }
  EXPECT_NO_THROW(JournalLock(path.string(), "--journal"));
  EXPECT_EQ(read_journal(path.string()).cases.size(), 1u) << "a lock leaves a written journal";
}

// A lock that made the journal and saw nothing written (the run was refused before its first
// case) removes it again; a journal that was there stays.
TEST_F(CaseJournalTest, AnEmptyJournalTheLockMadeIsRemoved) {
  { const JournalLock lock(path.string(), "--journal"); }
  EXPECT_FALSE(fs::exists(path));
  test_support::write_text(path, "");
  { const JournalLock lock(path.string(), "--journal"); }
  EXPECT_TRUE(fs::exists(path));
}

// The journal's folder is made when missing: --report or --journal into a folder not there yet.
TEST_F(CaseJournalTest, TheJournalsFolderIsMade) {
  const fs::path nested = path / "a" / "b.journal";
  {
    const JournalLock lock(nested.string(), "--journal");
    CaseJournal j(nested.string(), JournalHeader{"digest", 7, "cpu", 3}, false);
    j.append(held("a"));
  }
  EXPECT_EQ(read_journal(nested.string()).cases.size(), 1u);
  fs::remove_all(path);
}

// A new journal empties the file only once it is open; the lock's holder decides who may.
TEST_F(CaseJournalTest, ANewJournalReplacesAnOldOne) {
  {
    CaseJournal j(path.string(), JournalHeader{"old", 7, "cpu", 3}, false);
    j.append(held("a"));
    j.append(held("b"));
  }
  { CaseJournal j(path.string(), JournalHeader{"new", 7, "cpu", 3}, false); }
  const JournalContents in = read_journal(path.string());
  EXPECT_EQ(in.header.plan_sha256, "new");
  EXPECT_TRUE(in.cases.empty());
}

}  // namespace case_journal_test_file
}  // namespace samebits
