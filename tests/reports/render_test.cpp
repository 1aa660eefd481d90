// The HTML, Markdown and JUnit renderings of real reports (shipped contracts run on the CPU, a
// planted flaw, an errored case): self-contained, escaped, counting what the report counts.
// Every detector used here is first shown to fire on a string that must trip it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "reports/model/outcome.h"
#include "reports/model/report_reader.h"
#include "reports/render/check_headline.h"
#include "reports/render/heatmap.h"
#include "reports/render/html_cases.h"
#include "reports/render/html_report.h"
#include "reports/render/junit_report.h"
#include "reports/render/markdown_report.h"
#include "reports/render/markup.h"
#include "tests/reports/render_fixture.h"

namespace samebits {
namespace {

const Report& fixture() {
  static const Report report = render_fixture_report();
  return report;
}

const Report& hostile() {
  static const Report report = with_hostile_names(fixture());
  return report;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// What would make the page reach outside itself, or run a script from elsewhere.
std::vector<std::string> external_references(const std::string& html) {
  std::vector<std::string> found;
  const std::string text = lower(html);
  for (const char* needle : {"http://", "https://", "<script src", "<link", "@import", "url("}) {
    if (text.find(needle) != std::string::npos) found.push_back(needle);
  }
  return found;
}

// The hostile strings as written, found anywhere in a rendering: a sign something was not escaped.
std::vector<std::string> unescaped(const std::string& text) {
  std::vector<std::string> found;
  for (const char* raw : {kHostileContract, kHostileImpl, kHostileParam}) {
    if (text.find(raw) != std::string::npos) found.push_back(raw);
  }
  return found;
}

std::int64_t count_outcomes(const Report& r, bool (*pick)(Outcome)) {
  return std::count_if(r.checks.begin(), r.checks.end(),
                       [&](const CheckResult& g) { return pick(g.outcome); });
}

bool is_errored(Outcome o) {
  return o == Outcome::errored;
}
bool is_not_run(Outcome o) {
  return o == Outcome::not_run;
}
bool is_finding(Outcome o) {
  return o == Outcome::finding;
}

// The numbers of a headline, in order.
std::vector<double> numbers_in(const std::string& line) {
  std::vector<double> out;
  static const std::regex number(R"((\d+(?:\.\d+)?))");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), number);
       it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str()));
  return out;
}

std::vector<double> summary_numbers(const Summary& s) {
  return {static_cast<double>(s.exit_code),     static_cast<double>(s.checks),
          static_cast<double>(s.as_expected),   static_cast<double>(s.unexpected),
          static_cast<double>(s.informational), static_cast<double>(s.findings),
          static_cast<double>(s.not_observed),  static_cast<double>(s.cases),
          static_cast<double>(s.held),          static_cast<double>(s.violated),
          static_cast<double>(s.skipped),       static_cast<double>(s.errors)};
}

bool headline_matches(const std::string& markdown, const Summary& s) {
  const std::string line = markdown.substr(0, markdown.find('\n'));
  const std::vector<double> found = numbers_in(line);
  const std::vector<double> want = summary_numbers(s);
  return found.size() >= want.size() && std::equal(want.begin(), want.end(), found.begin());
}

// The fixture holds every outcome the renderers branch on, or the tests below would pass vacuously.
TEST(RenderFixture, HoldsSurprisesErrorsAndFindings) {
  const Report& r = fixture();
  EXPECT_GT(count_outcomes(r, fails_gate), 0);
  EXPECT_GT(count_outcomes(r, is_errored), 0);
  EXPECT_GT(count_outcomes(r, is_finding), 0);
  EXPECT_GT(r.summary.violated, 0);
}

TEST(HtmlReport, DetectorsFireOnWhatTheyLookFor) {
  EXPECT_EQ(external_references("<LINK rel=stylesheet href=\"HTTPS://cdn.example/x.css\">").size(),
            2u);
  EXPECT_FALSE(external_references("<style>a{background:url(x.png)}</style>").empty());
  EXPECT_FALSE(external_references("<script src=\"a.js\"></script>").empty());
  EXPECT_TRUE(external_references("<p>samebits</p>").empty());
  EXPECT_FALSE(unescaped(std::string("<td>") + kHostileContract + "</td>").empty());
  EXPECT_TRUE(unescaped("<td>" + escape_markup(kHostileContract) + "</td>").empty());
}

TEST(HtmlReport, IsOneSelfContainedFile) {
  const std::string html = render_html(fixture(), "r.json");
  EXPECT_TRUE(external_references(html).empty())
      << ::testing::PrintToString(external_references(html));
  EXPECT_EQ(count_of(lower(html), "<script"), 0u);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReport, EscapesEveryUserString) {
  const std::string html = render_html(hostile(), "dir with space/r<1>.json");
  EXPECT_TRUE(unescaped(html).empty()) << ::testing::PrintToString(unescaped(html));
  EXPECT_NE(html.find(escape_markup(kHostileContract)), std::string::npos);
  EXPECT_NE(html.find(escape_markup(kHostileImpl)), std::string::npos);
  EXPECT_NE(html.find(escape_markup(kHostileParam)), std::string::npos);
  EXPECT_EQ(html.find("r<1>.json"), std::string::npos);
}

TEST(HtmlReport, ShowsPlatformOutcomesAndHeatmaps) {
  const Report& r = fixture();
  const std::string html = render_html(r, "r.json");
  for (const char* section : {"id=\"platform\"", "id=\"summary\"", "id=\"surprises\"",
                              "id=\"contracts\"", "id=\"cases\""})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  // The platform fingerprint's fields.
  ASSERT_FALSE(r.settings.platform.device.empty());
  for (const auto& [field, value] : r.settings.platform.fields()) {
    if (value.empty()) continue;
    EXPECT_NE(html.find(">" + field + "<"), std::string::npos) << field;
  }
  // Batch size x position (sum, softmax), chunk size (sdpa) and N strips (layouts) were drawn.
  EXPECT_NE(html.find("aria-label=\"mismatches by batch and position\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"mismatches by chunk and "), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"mismatches by N and layout\""), std::string::npos);
  // Every cell and strip segment carries its tooltip.
  EXPECT_EQ(count_of(html, "<rect "), count_of(html, "</title></rect>"));
  EXPECT_GT(count_of(html, "<rect "), 0u);
}

TEST(HtmlReport, DrillsIntoViolatedCasesWithTheirRerunCommand) {
  const Report& r = fixture();
  const std::string html = render_html(r, "out/r.json");
  const auto violated = std::find_if(r.cases.begin(), r.cases.end(),
                                     [](const auto& c) { return c.verdict == Verdict::violated; });
  ASSERT_NE(violated, r.cases.end());
  EXPECT_NE(html.find(escape_markup(rerun_command("out/r.json", violated->id))), std::string::npos);
  const Mismatch& m = violated->outputs.front().diff.first_mismatches.front();
  EXPECT_NE(html.find(m.baseline_bits), std::string::npos);
  EXPECT_NE(html.find(m.variant_bits), std::string::npos);
}

TEST(HtmlReport, CapsTheCasesPerCheckAndSaysHowManyWereLeftOut) {
  Report r = fixture();
  const auto check = std::find_if(r.checks.begin(), r.checks.end(),
                                  [](const auto& g) { return fails_gate(g.outcome); });
  ASSERT_NE(check, r.checks.end());
  const CaseIndex before(r);
  const CaseResult model = *before.of(*check).front();
  const std::size_t extra = kDrilldownCases + 10;
  for (std::size_t i = 0; i < extra; ++i) {
    CaseResult c = model;
    c.id = "copy-" + std::to_string(i);
    c.verdict = Verdict::violated;
    r.cases.push_back(c);
  }
  check->violated += static_cast<std::int64_t>(extra);
  const std::string html = render_html(r, "r.json");
  const std::size_t in_check = static_cast<std::size_t>(check->violated + check->errors);
  EXPECT_NE(
      html.find(std::to_string(in_check - kDrilldownCases) + " more violated or errored "
                                                             "cases of this check are left out"),
      std::string::npos);
  EXPECT_EQ(count_of(html, "--case copy-"), kDrilldownCases - (in_check - extra));
}

TEST(HtmlReport, DrawsASweepsDispatchMap) {
  const Report r = read_report_file(std::string(SAMEBITS_SOURCE_DIR) +
                                    "/reports/examples/sweeps/cpu-sweep-sum-dim0.json.gz");
  ASSERT_TRUE(r.dispatch.has_value());
  const std::string html = render_html(r, "r.json");
  EXPECT_NE(html.find("id=\"dispatch\""), std::string::npos);
  for (const auto& rc : r.dispatch->result_classes) {
    EXPECT_NE(html.find(escape_markup(rc.label)), std::string::npos) << rc.label;
    EXPECT_NE(html.find(escape_markup(rc.rule.text)), std::string::npos) << rc.rule.text;
  }
  for (const auto& v : r.dispatch->variants) {
    if (v == r.dispatch->variants.front()) continue;
    EXPECT_NE(html.find(">" + v + " bits<"), std::string::npos) << v;
  }
  EXPECT_TRUE(external_references(html).empty());
}

TEST(Heatmap, LaysBatchInvarianceOverBatchAndPositionKeepingEveryMismatch) {
  const Report& r = fixture();
  const CaseIndex index(r);
  std::size_t drawn = 0;
  for (const auto& g : r.checks) {
    if (g.check != "batch_invariance" && g.check != "chunked_prefill") continue;
    const auto map = heatmap_of(index.of(g));
    ASSERT_TRUE(map) << g.contract << "/" << g.check;
    EXPECT_EQ(map->x_axis, g.check == "chunked_prefill" ? "chunk" : "batch");
    std::int64_t in_cells = 0, in_cases = 0, ran = 0;
    for (const auto& row : map->cells)
      for (const auto& cell : row) in_cells += cell.mismatched, ran += cell.ran;
    for (const CaseResult* c : index.of(g)) {
      for (const auto& o : c->outputs) in_cases += o.diff.mismatched;
    }
    EXPECT_EQ(in_cells, in_cases);
    EXPECT_EQ(ran, g.held + g.violated);
    ++drawn;
  }
  EXPECT_GT(drawn, 0u);
}

TEST(Heatmap, MergesWideAxesIntoRanges) {
  std::vector<CaseResult> cases(kHeatmapMaxColumns * 3);
  std::vector<const CaseResult*> pointers;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    cases[i].params = Json{{"N", static_cast<int>(i)}, {"layout", "padded:4"}};
    cases[i].verdict = Verdict::holds;
    pointers.push_back(&cases[i]);
  }
  const auto map = heatmap_of(pointers);
  ASSERT_TRUE(map);
  EXPECT_EQ(map->x_values.size(), kHeatmapMaxColumns);
  EXPECT_EQ(map->x_values.front(), "0..2");
  EXPECT_EQ(map->x_ticks.front(), "0");
}

TEST(JunitReport, OneTestcasePerCheckAndAFailurePerGateFailure) {
  const Report& r = fixture();
  const std::string xml = render_junit(r, "r.json");
  EXPECT_EQ(count_of(xml, "<testcase "), r.checks.size());
  EXPECT_EQ(count_of(xml, "<failure "), static_cast<std::size_t>(count_outcomes(r, fails_gate)));
  EXPECT_EQ(count_of(xml, "<error "), static_cast<std::size_t>(count_outcomes(r, is_errored)));
  EXPECT_EQ(count_of(xml, "<skipped "), static_cast<std::size_t>(count_outcomes(r, is_not_run)));
  EXPECT_NE(xml.find("failure message=\"new violation: "), std::string::npos);
  EXPECT_NE(xml.find("classname=\"samebits.sum\" name=\"batch_invariance[samebits/cpu]\""),
            std::string::npos);
  // The counter itself: a document with two failures counts two.
  EXPECT_EQ(count_of("<failure message=\"a\"/><failure message=\"b\"/>", "<failure "), 2u);
}

TEST(JunitReport, EscapesEveryUserString) {
  const std::string xml = render_junit(hostile(), "r.json");
  EXPECT_TRUE(unescaped(xml).empty()) << ::testing::PrintToString(unescaped(xml));
  EXPECT_NE(xml.find(escape_markup(std::string("samebits.") + kHostileContract)),
            std::string::npos);
}

TEST(MarkdownReport, HeadlineCountsMatchTheSummary) {
  const Report& r = fixture();
  const std::string md = render_markdown(r);
  EXPECT_TRUE(headline_matches(md, r.summary)) << md.substr(0, md.find('\n'));
  EXPECT_NE(md.find("| new violation | sum / batch\\_invariance | samebits / cpu |"),
            std::string::npos);
  // Negative control: the same headline does not match a summary with one count changed.
  Summary other = r.summary;
  ++other.violated;
  EXPECT_FALSE(headline_matches(md, other));
}

// Every unexpected or errored outcome gets its row while the comment stays under GitHub's limit
// (recap_test.cpp checks the cut); 30 more failing checks are 30 more rows.
TEST(MarkdownReport, ListsEveryUnexpectedOutcome) {
  Report r = fixture();
  const CheckResult failing = *std::find_if(r.checks.begin(), r.checks.end(),
                                            [](const auto& g) { return fails_gate(g.outcome); });
  const std::int64_t before = count_outcomes(r, fails_gate) + count_outcomes(r, is_errored);
  for (int i = 0; i < 30; ++i) {
    CheckResult g = failing;
    g.check = "copy_" + std::to_string(i);
    r.checks.push_back(g);
  }
  for (auto& g : r.checks) g.nearest_observed = Expectation::unknown;  // no second table
  const std::string md = render_markdown(r);
  EXPECT_EQ(static_cast<std::int64_t>(count_of(md, "\n| ")) - 2, before + 30);
  EXPECT_EQ(md.find("left out"), std::string::npos);
}

// Findings that differ from the nearest recorded platform get their own table (capped too); those
// that agree with it do not. The two findings are made here, whatever the fixture's checks found.
TEST(MarkdownReport, ListsFindingsThatDifferFromTheNearestPlatform) {
  Report r = fixture();
  ASSERT_GE(r.checks.size(), 2u) << "precondition: the fixture has two checks";
  for (auto& g : r.checks) {
    g.nearest_observed = Expectation::unknown;
    g.nearest_varying = false;
  }
  // The first finding, held here, was violated on the nearest platform; the second agrees with it.
  CheckResult& differs = r.checks[0];
  CheckResult& agrees = r.checks[1];
  differs.outcome = agrees.outcome = Outcome::finding;
  differs.observed = Verdict::holds;
  differs.nearest_observed = Expectation::violated;
  agrees.observed = Verdict::violated;
  agrees.nearest_observed = Expectation::violated;
  const std::string md = render_markdown(r);
  const auto table = md.find("| finding | impl / device | here | nearest recorded |");
  ASSERT_NE(table, std::string::npos) << md;
  EXPECT_EQ(count_of(md.substr(table), "\n| ") - 1, 1u) << md.substr(table);
  EXPECT_NE(md.find(fmt::format("| {} / {} | {} / {} | holds | violated |", differs.contract,
                                differs.check, differs.impl, differs.device)),
            std::string::npos)
      << md.substr(table);
  // Negative control: with no nearest outcomes there is no such table.
  for (auto& g : r.checks) g.nearest_observed = Expectation::unknown;
  EXPECT_EQ(render_markdown(r).find("| finding |"), std::string::npos);
}

TEST(MarkdownReport, SaysWhatTheBaselineComparisonFound) {
  Report r = fixture();
  EXPECT_EQ(render_markdown(r).find("verdict changes"), std::string::npos);
  RunComparison c;
  c.baseline_file = "h100.json";
  c.verdict_changes.resize(2);
  c.drift.resize(1);
  c.platform_differences = {"gpu: NVIDIA H100 here NVIDIA A100"};
  r.baseline_comparison = c;
  EXPECT_NE(render_markdown(r).find("Against h100.json: 2 verdict changes, 1 cases with other bits "
                                    "(drift), recorded on another platform."),
            std::string::npos)
      << render_markdown(r);
  r.baseline_comparison->checks_varying = {"attention/gradient_determinism/aten.efficient"};
  EXPECT_NE(render_markdown(r).find("(drift), 1 checks recorded as varying there (seen both ways: "
                                    "not compared), recorded on another platform."),
            std::string::npos)
      << render_markdown(r);
}

// With --baseline, the page and the headline say what the comparison found; an exit 1 caused by
// drift alone is not called "unexpected outcomes".
TEST(HtmlReport, ShowsTheBaselineComparison) {
  Report r = fixture();
  EXPECT_EQ(render_html(r, "r.json").find("id=\"baseline\""), std::string::npos);
  r.summary = Summary{};
  r.summary.exit_code = kExitUnexpected;
  RunComparison c;
  c.baseline_file = "h100.json";
  c.before = "h100";
  c.checks_compared = 3;
  c.cases_compared = 9;
  c.drift = {{"sum/x/<b>", Expectation::holds, Expectation::holds, {"out"}}};
  c.matched_also_seen = {"sum/y"};
  r.baseline_comparison = c;
  const std::string html = render_html(r, "r.json");
  EXPECT_NE(html.find("id=\"baseline\""), std::string::npos);
  EXPECT_NE(html.find("<b>1 drifted</b>"), std::string::npos);
  EXPECT_NE(html.find("<code>sum/x/&lt;b&gt;</code>"), std::string::npos);
  EXPECT_NE(html.find("1 matched bits the baseline also saw"), std::string::npos);
  EXPECT_EQ(html.find("records as varying"), std::string::npos);
  r.baseline_comparison->checks_varying = {"sum/<z>"};
  EXPECT_NE(render_html(r, "r.json")
                .find("1 checks the baseline records as varying (seen both ways on its platform: "
                      "reported, not compared): <code>sum/&lt;z&gt;</code>.</p>"),
            std::string::npos);
  EXPECT_NE(html.find("exit 1: the baseline comparison gates"), std::string::npos);
  EXPECT_NE(render_markdown(r).find("exit 1 (the baseline comparison gates)"), std::string::npos);
}

TEST(MarkdownReport, EscapesEveryUserString) {
  const std::string md = render_markdown(hostile());
  EXPECT_EQ(md.find("s<&"), std::string::npos);
  EXPECT_EQ(md.find("sb<&"), std::string::npos);
  EXPECT_NE(md.find("s&lt;&amp;\"um'"), std::string::npos);
  EXPECT_EQ(escape_markdown("a|b"), "a\\|b");
}

}  // namespace
}  // namespace samebits
