// How each rendering shows a check its covering platform records as "varies" (seen both ways
// there): beside the outcome, in words, never as a failure; a check with no record reads as before.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"
#include "reports/render/html_report.h"
#include "reports/render/junit_report.h"
#include "reports/render/markdown_report.h"
#include "tests/reports/console_text.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace varying_check_render_test_file {}
using namespace varying_check_render_test_file;
namespace varying_check_render_test_file {

// ATen's efficient attention backward on an H200, as on 2026-11-28: four cases, the last one's
// gradient differing (or holding, with `violated` false). The platform's file has no verdict for
// the check: "varies" when `varying`, else no record at all (none of its cases ran there).
Report h200_run(bool varying, bool violated = true) {
  Report r;
  r.created = "2026-11-28T16:00:00Z";
  r.settings.device = "cuda";
  for (const char* lq : {"1", "63", "1024", "4097"}) {
    CaseResult c;
    c.id = std::string("attention/gradient_determinism/aten.efficient/cuda/Lq=") + lq;
    c.contract = "attention";
    c.check = "gradient_determinism";
    c.kind = CheckKind::gradient_determinism;
    c.impl = "aten.efficient";
    c.device = "cuda";
    c.params = Json{{"Lq", lq}};
    c.expected = Expectation::unknown;
    c.expected_from = ExpectationSource::observation;
    c.observed_on = "h200";
    c.recorded_varying = varying;
    c.verdict = Verdict::holds;
    DiffStats d;
    d.numel = 8390656;
    d.max_ulp = 0;
    if (violated && std::string(lq) == "4097") {
      c.verdict = Verdict::violated;
      d.mismatched = 79;
      d.max_ulp = 16;
      d.within = false;
    }
    c.outputs = {{"grad:0", std::string(64, 'a'), std::string(64, 'b'), d}};
    r.cases.push_back(c);
  }
  r.checks = judge_checks(r.cases);
  r.summary = summarize(r.cases, r.checks);
  return r;
}

struct Rendering {
  std::string name;
  std::function<std::string(const Report&)> render;
};
void PrintTo(const Rendering& p, std::ostream* os) {
  *os << p.name;
}

class VaryingCheck : public ::testing::TestWithParam<Rendering> {};

// The premise first: neither run gates (informational, exit 0), whichever way the check went.
TEST_P(VaryingCheck, SaysItIsRecordedAsVaryingAndNeverFails) {
  for (const bool violated : {true, false}) {
    const Report r = h200_run(true, violated);
    ASSERT_EQ(r.checks.size(), 1u);
    ASSERT_EQ(r.checks[0].outcome, Outcome::informational);
    ASSERT_EQ(r.summary.exit_code, kExitAsExpected);
    const std::string text = GetParam().render(r);
    EXPECT_NE(text.find("recorded as varying on h200"), std::string::npos) << text;
    for (const char* failure : {"FAIL", "new violation", "<failure"})
      EXPECT_EQ(text.find(failure), std::string::npos) << failure << " in\n" << text;
  }
}

// Negative control: the same run where the platform has no record of the check.
TEST_P(VaryingCheck, ACheckWithNoRecordIsNotSaidToVary) {
  const std::string text = GetParam().render(h200_run(false));
  EXPECT_EQ(text.find("varying"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Renderings, VaryingCheck,
    ::testing::Values(Rendering{"Terminal", console_summary_text},
                      Rendering{"Markdown", [](const Report& r) { return render_markdown(r); }},
                      Rendering{"Html", [](const Report& r) { return render_html(r, "r.json"); }},
                      Rendering{"Junit",
                                [](const Report& r) { return render_junit(r, "r.json"); }}),
    [](const ::testing::TestParamInfo<Rendering>& info) { return info.param.name; });

TEST(VaryingCheckHeadline, NamesThePlatformThenWhatHappened) {
  const Report violated = h200_run(true);
  EXPECT_EQ(check_headline(violated.checks[0], {&violated.cases[3]}),
            "informational, recorded as varying on h200: 1/4 cases violated; first: case "
            "attention/gradient_determinism/aten.efficient/cuda/Lq=4097, 79 of 8390656 elements "
            "differ, max 16 ULP");
  const Report held = h200_run(true, false);
  EXPECT_EQ(check_headline(held.checks[0], {}),
            "informational, recorded as varying on h200: held in 4/4 cases");
  // Control: no record, the bare outcome.
  const Report unrecorded = h200_run(false, false);
  EXPECT_EQ(check_headline(unrecorded.checks[0], {}), "informational: held in 4/4 cases");
}

// The terminal's row: "varies" as the expectation, the platform beside the outcome. Control: with
// no record, "unknown" and a bare "info".
TEST(VaryingCheckTerminal, TheRowSaysVaries) {
  std::string text = console_summary_text(h200_run(true));
  EXPECT_NE(text.find("  cuda    varies    violated            1/4  info, recorded as varying on "
                      "h200\n"),
            std::string::npos)
      << text;
  text = console_summary_text(h200_run(false));
  EXPECT_NE(text.find("  cuda    unknown   violated            1/4  info\n"), std::string::npos)
      << text;
}

// Markdown lists only surprises in its table: a varying check gets its own list, with its headline.
TEST(VaryingCheckMarkdown, ListedApartWithItsHeadline) {
  const std::string md = render_markdown(h200_run(true));
  EXPECT_NE(md.find("\n1 checks recorded as varying on this platform (seen both ways there: "
                    "reported, never gating):\n\n- attention / gradient\\_determinism "
                    "(aten.efficient / cuda): informational, recorded as varying on h200: 1/4 "
                    "cases violated;"),
            std::string::npos)
      << md;
}

TEST(VaryingCheckHtml, TheExpectationReadsVaries) {
  EXPECT_NE(render_html(h200_run(true, false), "r.json")
                .find("<td>varies (recorded as varying on h200)</td>"),
            std::string::npos);
  EXPECT_NE(render_html(h200_run(false), "r.json").find("<td>unknown (on h200)</td>"),
            std::string::npos);
}

TEST(VaryingCheckJunit, APassingTestcaseWithTheHeadline) {
  const std::string xml = render_junit(h200_run(true), "r.json");
  EXPECT_NE(xml.find("<system-out>informational, recorded as varying on h200: 1/4 cases violated"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("failures=\"0\" errors=\"0\""), std::string::npos) << xml;
}

// The same check on a platform no recorded one covers (a finding), whose nearest recorded
// platform, h200, records it as "varies" (nearest_varying) or has no record of it.
Report uncovered_run(bool nearest_varies) {
  Report r = h200_run(false);
  for (auto& c : r.cases) {
    c.expected_from = ExpectationSource::none;
    c.observed_on.clear();
  }
  r.checks = judge_checks(r.cases);
  for (auto& g : r.checks) g.nearest_varying = nearest_varies;
  r.summary = summarize(r.cases, r.checks);
  r.settings.nearest_platform =
      NearestPlatform{"h200", {"gpu: NVIDIA H200 there, NVIDIA B200 here"}};
  return r;
}

// Where the nearest platform records a finding's check as "varies", the terminal's findings note
// and Markdown's table of findings that differ from it say so. Control: no record, no such line.
TEST(NearestPlatformVaries, TheFindingsThatDifferSaySo) {
  const Report varies = uncovered_run(true);
  ASSERT_EQ(varies.checks[0].outcome, Outcome::finding);
  std::string text = console_summary_text(varies);
  EXPECT_NE(text.find("Findings that differ from h200:\n  attention/gradient_determinism/"
                      "aten.efficient: violated here, varies on h200\n"),
            std::string::npos)
      << text;
  std::string md = render_markdown(varies);
  EXPECT_NE(md.find("| attention / gradient\\_determinism | aten.efficient / cuda | violated | "
                    "varies |\n"),
            std::string::npos)
      << md;
  const Report unrecorded = uncovered_run(false);
  text = console_summary_text(unrecorded);
  EXPECT_EQ(text.find("Findings that differ"), std::string::npos) << text;
  md = render_markdown(unrecorded);
  EXPECT_EQ(md.find("| finding |"), std::string::npos) << md;
}

}  // namespace varying_check_render_test_file
}  // namespace samebits
