// Without --isolate, a case whose error breaks the CUDA context ends the run after it: the case is
// crashed, no later case runs, settings.context_broken names it and the exit code is 3. On the CPU
// the break is told by the test (RunRequest::context_broken) after the planted fault's error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/contract_loading.h"
#include "harness/pipeline.h"
#include "tests/faults/planted_fault_op.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace context_broken_test_file {}
using namespace context_broken_test_file;
namespace context_broken_test_file {

// What `run --isolate`'s child tells its parent, in order.
class EventLog final : public CaseEvents {
 public:
  void started(const std::string& id) override { lines.push_back("started " + fault_of(id)); }
  void finished(const std::string& id) override { lines.push_back("finished " + fault_of(id)); }
  void context_broken(const std::string& id) override { lines.push_back("broken " + fault_of(id)); }
  std::vector<std::string> lines;

 private:
  static std::string fault_of(const std::string& id) { return id.substr(id.rfind(',') + 1); }
};

Report run_planted(std::function<bool(const at::Device&)> context_broken,
                   CaseEvents* events = nullptr) {
  const auto contracts =
      load_contracts({std::string(SAMEBITS_SOURCE_DIR) + "/tests/contracts/planted_faults.json"});
  const OpRegistry registry = ops_with_planted_faults();
  RunRequest request;
  request.contracts = &contracts;
  request.registry = &registry;
  request.device = "cpu";
  request.capture = "off";
  request.selection.filter = "fault=(none|error)|after";  // an op error, between holding cases
  request.context_broken = std::move(context_broken);
  request.events = events;
  return run_pipeline(request);
}

TEST(ContextBroken, TheRunEndsAfterTheCaseThatBrokeIt) {
  EventLog events;
  const Report r = run_planted([](const at::Device&) { return true; }, &events);
  // The parent learns at once that the child's run ends here (not a case under way: a crash).
  EXPECT_EQ(events.lines, (std::vector<std::string>{"started fault=none", "finished fault=none",
                                                    "started fault=error", "broken fault=error"}));
  ASSERT_EQ(r.cases.size(), 2u) << "fault=none, then fault=error; the after cases never start";
  EXPECT_EQ(r.cases[0].verdict, Verdict::holds);
  const CaseResult& broke = r.cases[1];
  EXPECT_EQ(broke.params.value("fault", ""), "error");
  EXPECT_EQ(broke.verdict, Verdict::crashed);
  EXPECT_NE(broke.reason.find("the CUDA context broke: planted fault: an op error"),
            std::string::npos)
      << broke.reason;
  ASSERT_TRUE(r.settings.context_broken);
  EXPECT_EQ(r.settings.context_broken->case_id, broke.id);
  EXPECT_EQ(r.settings.context_broken->cases_run, 2);
  EXPECT_EQ(r.settings.context_broken->cases_planned, 4);
  EXPECT_FALSE(r.settings.interrupted);
  EXPECT_EQ(r.summary.crashed, 1);
  EXPECT_EQ(r.summary.exit_code, 3);
}

// The control: the same error on a context that still works is one case's error; the run goes on.
TEST(ContextBroken, AnErrorAloneDoesNotEndTheRun) {
  const Report r = run_planted([](const at::Device&) { return false; });
  ASSERT_EQ(r.cases.size(), 4u);
  int errors = 0;
  for (const auto& c : r.cases) {
    errors += c.verdict == Verdict::error;
    if (c.verdict != Verdict::error) {
      EXPECT_EQ(c.verdict, Verdict::holds) << c.id << c.reason;
    }
  }
  EXPECT_EQ(errors, 1);
  EXPECT_FALSE(r.settings.context_broken);
  EXPECT_EQ(r.summary.exit_code, 3);
}

}  // namespace context_broken_test_file
}  // namespace samebits
