// What localize found, as the JSON, the HTML and the terminal show it: what ran, both runs'
// recordings, their comparison and the recording's cost. Independent of who made the recordings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json_document.h"
#include "harness/localize/divergence.h"

namespace samebits::localize {

inline constexpr const char* kLocalizeSchema = "samebits.localize/1";

struct Side {
  std::string name;  // "alone", "batch", "run1": a JSON key
  Recording recording;
};

// After the first divergence, the same comparison rerun with that op's family from samebits.
struct FollowUp {
  std::string replaced;  // the family swapped to samebits: "linear", "attention", ...
  std::string mix;       // the mix that ran: "aten+samebits.linear"
  std::optional<std::string> first_op, first_region;  // its first divergence, if any
  bool moved = false;  // a divergence remained, at another op or region
};

// The first divergent op as a schema contract that reruns it alone (rerun_contract.h), or why not.
struct Rerun {
  std::string check;    // the check kind the contract runs: "batch_invariance"
  std::string file;     // where the contract was written; empty where none was (or could be)
  std::string command;  // what reruns it: "samebits run FILE --device cpu"
  std::string why_not;  // no contract: the op or an argument a contract cannot describe
};

struct Finding {
  Json subject = Json::object();  // what ran: model, mix, dtype, device, comparison, item, seed
  Side a, b;
  Localization result;
  std::optional<double> plain_ms;  // b's call without the recorder, where the caller timed it
  std::vector<FollowUp> follow_ups;
  std::optional<Rerun> rerun;  // where asked for, with a first divergence
};

// "diverges", "identical" (every comparable op equal) or "nothing comparable".
std::string verdict(const Finding& f);

// {"schema": kLocalizeSchema, "subject", "verdict", "sides", "overhead", "counts",
// "first_divergence", "timeline" (every op from the first divergence on), "unmatched",
// "follow_ups", "rerun"}: ordered, the first divergence with both sides' ops in full.
void to_json(Json& j, const Finding& f);

// A few lines for the terminal: the verdict, the first divergent op on both sides, its ULP
// histogram, how many later ops differ, the follow-ups and the overhead.
std::string summary_text(const Finding& f);

// The rerun in one line: "rerun alone (batch_invariance): samebits run FILE --device cpu", or
// why there is no contract.
std::string rerun_line(const Rerun& r);

// A self-contained HTML page (inline CSS and SVG, no scripts): every op along the model as a cell,
// the first divergence marked, later ops coloured by their worst ULP distance; the first op's
// details below.
std::string finding_html(const Finding& f);

}  // namespace samebits::localize
