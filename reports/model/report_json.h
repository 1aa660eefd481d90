// The report-level records (checks, their tallies, contracts, the summary) both ways (nlohmann's
// to_json/from_json, found by ADL): one definition per record, so writer and reader cannot drift.
#pragma once

#include "common/json_document.h"
#include "reports/model/report.h"

namespace samebits {

// {contract, check, kind, impl, device, expected, expected_from, observed_on (only when not
// empty), recorded_varying (3.2, only when true), nearest_observed (only for a finding with one),
// nearest_varying (3.3, only for a finding whose nearest platform records "varies"), observed,
// outcome, planned, cases, held, violated, skipped, errors, crashed, timed_out,
// violations_by_axis}. Reads 2.x checks too: expected_from absent is "promise", planned absent the
// cases run, crashed (2.3) absent 0.
void to_json(Json& j, const CheckResult& g);
void from_json(const Json& j, CheckResult& g);

// {axis, value, violated, total}.
void to_json(Json& j, const AxisTally& t);
void from_json(const Json& j, AxisTally& t);

// {name, source, sha256, op, description, text}.
void to_json(Json& j, const ContractInfo& c);
void from_json(const Json& j, ContractInfo& c);

// {cases, held, violated, skipped, errors, crashed, timed_out, checks, as_expected, unexpected,
// informational, findings, not_observed, exit_code, duration_s}; crashed (2.3) absent reads as 0.
void to_json(Json& j, const Summary& s);
void from_json(const Json& j, Summary& s);

}  // namespace samebits
