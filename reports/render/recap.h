// What went wrong in a run, drawn once from the report for every place a user looks: the recap at
// the end of the terminal output, `samebits show`, and the Markdown of a pull request comment.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// In the order a reader wants them: what fails the gate, what could not run, bits that drifted
// from the baseline, drift of cases known to vary, then findings (observed on no recorded
// platform, violated).
enum class RecapKind { unexpected, errored, drift, varied, finding };
// "UNEXPECTED", "ERROR", "DRIFT", "VARIES", "FINDING".
std::string recap_tag(RecapKind kind);

// One case behind an entry: its id, how it differs (or why it did not run), and its rerun command.
struct RecapCase {
  std::string id;
  std::string difference;
  std::string rerun;
};

// A check (unexpected, errored, finding) or a drifted case (drift, varied).
struct RecapEntry {
  RecapKind kind = RecapKind::unexpected;
  std::string subject;  // "sum/layout_invariance/samebits on cpu", or the drifted case's id
  std::string summary;  // check_headline(), or "outputs out, lse drifted from BASELINE"
  std::vector<RecapCase> cases;  // the violated (or failed) cases, in report order
};

struct Recap {
  std::vector<RecapEntry> entries;  // by kind, then in report order
  std::size_t count(RecapKind kind) const;
};

// `report_path` is the JSON report the rerun commands name.
Recap recap_of(const Report& report, const std::string& report_path);

// How much of a recap a terminal shows: the first kCasesShown cases of each entry and the first
// kEntriesShown entries of each kind, or (verbose) all of them; colour as ANSI escapes.
struct RecapStyle {
  bool verbose = false;
  bool color = false;
};
inline constexpr std::size_t kCasesShown = 3;
inline constexpr std::size_t kEntriesShown = 20;

// The terminal's recap: "" when nothing went wrong; else a heading with the counts, then each
// entry with its cases, their differences and rerun commands, and what was left out (with how to
// see it: -v, `samebits show`).
std::string recap_text(const Recap& recap, const std::string& report_path, const RecapStyle& style);

}  // namespace samebits
