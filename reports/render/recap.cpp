// What went wrong in a run, drawn once from the report for every place a user looks: the recap at
// the end of the terminal output, `samebits show`, and the Markdown of a pull request comment.
#include "reports/render/recap.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"

namespace samebits {
namespace {

bool failed(Verdict v) {
  return v == Verdict::violated || did_not_run(v);
}

RecapCase recap_case(const CaseResult& c, const std::string& report_path) {
  return {c.id, case_difference(c), rerun_command(report_path, c.id)};
}

// The entries of one kind of drift (the comparison's "drift" or "varied" list).
void add_drift(RecapKind kind, const std::vector<CaseDrift>& rows, const std::string& baseline,
               const std::map<std::string, const CaseResult*>& cases,
               const std::string& report_path, std::vector<RecapEntry>& out) {
  for (const auto& d : rows) {
    RecapEntry e;
    e.kind = kind;
    e.subject = d.id;
    e.summary = fmt::format(
        "{} drifted from {}{}",
        d.outputs.empty() ? std::string("its verdict")
                          : fmt::format("outputs {}", fmt::join(d.outputs, ", ")),
        baseline,
        d.before == d.after ? ""
                            : fmt::format(" ({} -> {})", to_string(d.before), to_string(d.after)));
    const auto it = cases.find(e.subject);
    if (it != cases.end()) {
      e.cases.push_back(recap_case(*it->second, report_path));
    } else {
      e.cases.push_back({e.subject, "", rerun_command(report_path, e.subject)});
    }
    out.push_back(std::move(e));
  }
}

const char* colour(RecapKind kind) {
  switch (kind) {
    case RecapKind::unexpected:
    case RecapKind::errored: return "\033[1;31m";
    case RecapKind::drift: return "\033[1;35m";
    case RecapKind::varied:
    case RecapKind::finding: return "\033[33m";
  }
  return "";
}

}  // namespace

std::string recap_tag(RecapKind kind) {
  switch (kind) {
    case RecapKind::unexpected: return "UNEXPECTED";
    case RecapKind::errored: return "ERROR";
    case RecapKind::drift: return "DRIFT";
    case RecapKind::varied: return "VARIES";
    case RecapKind::finding: return "FINDING";
  }
  return "?";
}

std::size_t Recap::count(RecapKind kind) const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.kind == kind ? 1 : 0;
  return n;
}

Recap recap_of(const Report& report, const std::string& report_path) {
  const CaseIndex index(report);
  std::vector<RecapEntry> by_kind[5];
  for (const auto& g : report.checks) {
    RecapKind kind;
    if (fails_gate(g.outcome)) {
      kind = RecapKind::unexpected;
    } else if (g.outcome == Outcome::errored) {
      kind = RecapKind::errored;
    } else if (g.outcome == Outcome::finding && g.observed == Verdict::violated) {
      kind = RecapKind::finding;
    } else {
      continue;
    }
    RecapEntry e{kind, fmt::format("{}/{}/{} on {}", g.contract, g.check, g.impl, g.device),
                 check_headline(g, index.of(g)), {}};
    for (const CaseResult* c : index.of(g)) {
      if (failed(c->verdict)) e.cases.push_back(recap_case(*c, report_path));
    }
    by_kind[static_cast<int>(kind)].push_back(std::move(e));
  }
  if (const auto& b = report.baseline_comparison) {
    std::map<std::string, const CaseResult*> cases;
    for (const auto& c : report.cases) cases.emplace(c.id, &c);
    add_drift(RecapKind::drift, b->drift, b->baseline_file, cases, report_path,
              by_kind[static_cast<int>(RecapKind::drift)]);
    add_drift(RecapKind::varied, b->varied, b->baseline_file, cases, report_path,
              by_kind[static_cast<int>(RecapKind::varied)]);
  }
  Recap recap;
  for (auto& entries : by_kind) {
    for (auto& e : entries) recap.entries.push_back(std::move(e));
  }
  return recap;
}

std::string recap_text(const Recap& recap, const std::string& report_path,
                       const RecapStyle& style) {
  if (recap.entries.empty()) return "";
  const auto paint = [&](const char* code, const std::string& text) {
    return style.color ? code + text + "\033[0m" : text;
  };
  std::vector<std::string> counts;
  const RecapKind kinds[] = {RecapKind::unexpected, RecapKind::errored, RecapKind::drift,
                             RecapKind::varied, RecapKind::finding};
  const char* words[] = {"unexpected", "errored", "drifted", "drifted, known to vary",
                         "findings (violated, not gating)"};
  for (std::size_t k = 0; k < 5; ++k) {
    if (const std::size_t n = recap.count(kinds[k])) counts.push_back(fmt::format("{} {}", n, words[k]));
  }
  std::string out = paint("\033[1m", fmt::format("Recap: {}", fmt::join(counts, ", "))) + "\n";
  std::size_t shown_of_kind = 0, left_of_kind = 0;
  const auto close_kind = [&](RecapKind kind) {
    if (left_of_kind > 0) {
      out += fmt::format("  ... {} more {} entries (-v lists every one)\n", left_of_kind,
                         recap_tag(kind));
    }
    shown_of_kind = left_of_kind = 0;
  };
  for (std::size_t i = 0; i < recap.entries.size(); ++i) {
    const RecapEntry& e = recap.entries[i];
    if (i > 0 && recap.entries[i - 1].kind != e.kind) close_kind(recap.entries[i - 1].kind);
    if (!style.verbose && shown_of_kind == kEntriesShown) {
      ++left_of_kind;
      continue;
    }
    ++shown_of_kind;
    out += fmt::format("  {} {}\n    {}\n", paint(colour(e.kind), recap_tag(e.kind)), e.subject,
                       e.summary);
    const bool drift = e.kind == RecapKind::drift || e.kind == RecapKind::varied;
    for (std::size_t j = 0; j < e.cases.size(); ++j) {
      if (!style.verbose && j == kCasesShown) {
        // A check's cases share the check's id prefix: `show` filters on it.
        const std::string prefix = e.cases[j].id.substr(0, e.cases[j].id.rfind('/') + 1);
        out += fmt::format("    ... {} more cases: {}\n", e.cases.size() - j,
                           show_command(report_path, prefix));
        break;
      }
      const RecapCase& c = e.cases[j];
      if (!drift) out += fmt::format("    {}: {}\n", c.id, c.difference);
      out += paint("\033[2m", "      " + c.rerun) + "\n";
    }
  }
  close_kind(recap.entries.back().kind);
  return out;
}

}  // namespace samebits
