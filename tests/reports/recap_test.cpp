// The recap of what went wrong (terminal, `show`, Markdown) and a case's detail, drawn from a real
// report (shipped contracts on the CPU with a planted flaw): every unexpected check and its cases
// with rerun commands, drift from the baseline comparison, and the caps and their counts.
#include "reports/render/recap.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "reports/model/outcome.h"
#include "reports/render/case_detail.h"
#include "reports/render/check_headline.h"
#include "reports/render/markdown_report.h"
#include "reports/render/markup.h"
#include "tests/reports/render_fixture.h"

namespace samebits {
namespace {

const Report& fixture() {
  static const Report report = render_fixture_report();
  return report;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Every check that fails the gate is an UNEXPECTED entry, with every one of its violated cases and
// their rerun commands; checks that went as expected are not in it.
TEST(Recap, HoldsEveryUnexpectedCheckAndItsViolatedCases) {
  const Report& r = fixture();
  const Recap recap = recap_of(r, "r.json");
  std::set<std::string> unexpected;
  for (const auto& g : r.checks) {
    if (fails_gate(g.outcome))
      unexpected.insert(g.contract + "/" + g.check + "/" + g.impl + " on " + g.device);
  }
  ASSERT_FALSE(unexpected.empty()) << "precondition: the fixture has unexpected outcomes";
  std::set<std::string> listed;
  for (const auto& e : recap.entries) {
    if (e.kind == RecapKind::unexpected) listed.insert(e.subject);
  }
  EXPECT_EQ(listed, unexpected);
  for (const auto& e : recap.entries) {
    if (e.kind != RecapKind::unexpected) continue;
    ASSERT_FALSE(e.cases.empty()) << e.subject;
    for (const auto& c : e.cases) {
      const auto it = std::find_if(r.cases.begin(), r.cases.end(),
                                   [&](const CaseResult& x) { return x.id == c.id; });
      ASSERT_NE(it, r.cases.end()) << c.id;
      EXPECT_EQ(it->verdict, Verdict::violated) << c.id;
      EXPECT_EQ(c.rerun, rerun_command("r.json", c.id));
    }
  }
  // Findings in the recap are the violated ones only.
  for (const auto& e : recap.entries) {
    if (e.kind == RecapKind::finding) {
      EXPECT_FALSE(e.cases.empty()) << e.subject;
    }
  }
}

// The terminal text: a heading with the counts, the first kCasesShown cases of an entry and a
// `samebits show` line for the rest; -v shows every case. No escape sequence unless colour is on.
TEST(Recap, TerminalTextCapsCasesAndSaysHowToSeeTheRest) {
  const Recap recap = recap_of(fixture(), "r.json");
  const RecapEntry* big = nullptr;
  for (const auto& e : recap.entries) {
    if (e.cases.size() > kCasesShown && e.kind == RecapKind::unexpected) big = &e;
  }
  ASSERT_NE(big, nullptr) << "precondition: an unexpected check with more than "
                          << kCasesShown << " violated cases";
  const std::string text = recap_text(recap, "r.json", {});
  EXPECT_EQ(text.rfind("Recap: ", 0), 0u) << text;
  EXPECT_NE(text.find(fmt::format("{} unexpected", recap.count(RecapKind::unexpected))),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(big->cases[0].rerun), std::string::npos);
  EXPECT_EQ(text.find(big->cases[kCasesShown].rerun), std::string::npos);
  EXPECT_NE(text.find(fmt::format("... {} more cases: samebits show r.json --filter",
                                  big->cases.size() - kCasesShown)),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find('\033'), std::string::npos);

  const std::string verbose = recap_text(recap, "r.json", {true, false});
  for (const auto& c : big->cases) EXPECT_NE(verbose.find(c.rerun), std::string::npos) << c.id;
  EXPECT_NE(recap_text(recap, "r.json", {false, true}).find("\033[1;31mUNEXPECTED\033[0m"),
            std::string::npos);
}

// Nothing went wrong: no recap at all.
TEST(Recap, IsEmptyWhenEverythingWentAsExpected) {
  Report r = fixture();
  r.checks.clear();
  EXPECT_TRUE(recap_of(r, "r.json").entries.empty());
  EXPECT_EQ(recap_text(recap_of(r, "r.json"), "r.json", {}), "");
}

// Drift comes from the run's baseline comparison: gating drift as DRIFT, drift of varying cases as
// VARIES, each with the case's rerun command.
TEST(Recap, ListsDriftedAndVaryingCases) {
  Report r = fixture();
  r.checks.clear();
  const std::string a = r.cases[0].id, b = r.cases[1].id;
  RunComparison c;
  c.baseline_file = "h100.json";
  c.drift = {{a, Expectation::holds, Expectation::violated, {"out", "lse"}}};
  c.varied = {{b, Expectation::holds, Expectation::holds, {"out"}}};
  r.baseline_comparison = c;
  const Recap recap = recap_of(r, "r.json");
  ASSERT_EQ(recap.entries.size(), 2u);
  EXPECT_EQ(recap.entries[0].kind, RecapKind::drift);
  EXPECT_EQ(recap.entries[0].summary,
            "outputs out, lse drifted from h100.json (holds -> violated)");
  EXPECT_EQ(recap.entries[1].kind, RecapKind::varied);
  const std::string text = recap_text(recap, "r.json", {});
  EXPECT_NE(text.find("DRIFT " + a), std::string::npos) << text;
  EXPECT_NE(text.find("VARIES " + b), std::string::npos) << text;
  EXPECT_NE(text.find(rerun_command("r.json", a)), std::string::npos) << text;
}

// A case's detail: counts, the histogram, the first mismatch with both values' bits and its ULP.
TEST(CaseDetail, ShowsTheFirstMismatchInHex) {
  const Report& r = fixture();
  const auto it = std::find_if(r.cases.begin(), r.cases.end(), [](const CaseResult& c) {
    return c.verdict == Verdict::violated && !c.outputs.empty() &&
           !c.outputs[0].diff.first_mismatches.empty() && c.outputs[0].diff.first_mismatches[0].ulp;
  });
  ASSERT_NE(it, r.cases.end()) << "precondition: a violated case with a measurable mismatch";
  const Mismatch& m = it->outputs[0].diff.first_mismatches[0];
  const std::string text = case_detail_text(*it, "r.json", false);
  EXPECT_EQ(text.rfind(it->id + "\n", 0), 0u) << text;
  EXPECT_NE(text.find(m.baseline_bits + " vs " + m.variant_bits), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{} ULP", *m.ulp)), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{} of {} elements differ", it->outputs[0].diff.mismatched,
                                  it->outputs[0].diff.numel)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ULP histogram:"), std::string::npos) << text;
  EXPECT_NE(text.find("rerun: " + rerun_command("r.json", it->id)), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos);
}

// The PR comment: rerun commands in <details>, and under GitHub's limit however many checks fail,
// saying how much it left out. Negative control: the fixture itself is not cut.
TEST(MarkdownReport, PutsRerunCommandsInDetailsAndStaysUnderTheCommentLimit) {
  Report r = fixture();
  const std::string md = render_markdown(r, "r.json");
  EXPECT_EQ(md.find("left out to stay under"), std::string::npos);
  const Recap recap = recap_of(r, "r.json");
  const RecapEntry& first = recap.entries.front();
  ASSERT_EQ(first.kind, RecapKind::unexpected);
  EXPECT_NE(md.find("<details><summary>"), std::string::npos) << md;
  EXPECT_EQ(count_of(md, "<details>"), count_of(md, "</details>"));
  EXPECT_NE(md.find("<pre>" + escape_markup(first.cases[0].rerun) + "</pre>"), std::string::npos)
      << md;

  const CheckResult failing = *std::find_if(r.checks.begin(), r.checks.end(),
                                            [](const auto& g) { return fails_gate(g.outcome); });
  for (int i = 0; i < 3000; ++i) {
    CheckResult g = failing;
    g.check = "copy_" + std::to_string(i);
    r.checks.push_back(g);
  }
  const std::string big = render_markdown(r, "r.json");
  EXPECT_LE(big.size(), kMarkdownLimit);
  EXPECT_NE(big.find("more rows and entries are left out to stay under GitHub's 65536-character "
                     "comment limit"),
            std::string::npos)
      << big.substr(big.size() - 300);
  EXPECT_EQ(count_of(big, "<details>"), count_of(big, "</details>"));
}

}  // namespace
}  // namespace samebits
