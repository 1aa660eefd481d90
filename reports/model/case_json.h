// A case's record in a report, both ways (nlohmann's to_json/from_json, found by ADL): fields at
// their defaults left out and restored, so sweeps of thousands of identical outputs stay small.
#pragma once

#include "common/json_document.h"
#include "common/json_fields.h"
#include "reports/model/report.h"

namespace samebits {

// A case as a whole record, its kernel launches with their names and its properties as objects;
// reports/model/case_tables.h moves those into report-level tables. Left out (3.0): expected when
// "unknown", expected_from when "promise", observed_on, reason, baseline and variant when empty,
// recorded_varying (3.2) when false, comparison when the default ({"mode": "bitwise"}), kernels and
// properties when there are none. Reads 2.x records too.
void to_json(Json& j, const CaseResult& c);
void from_json(const Json& j, CaseResult& c);

void to_json(Json& j, const OutputResult& o);
void from_json(const Json& j, OutputResult& o);

// One output's comparison. Left out (3.0): mode when bitwise, mismatched, mismatch_fraction,
// max_abs_error, max_rel_error and nonfinite_mismatches when 0, within when true, max_ulp when
// not measurable, the ULP histogram when empty, first_mismatches when none, tolerance when empty.
// A histogram over ulp_bucket_labels() is written as its counts in that order, trailing zeros
// cut ([127] for 127 exact elements); any other as an object. A mismatch leaves out its values
// and its ULP distance where its bits give them back exactly (reports/model/mismatch_bits.h).
void to_json(Json& j, const DiffStats& d);
void from_json(const Json& j, DiffStats& d);

// A kernel launch with its name: {name, grid, block, registers, static_smem, dynamic_smem, count,
// duration_ns}, as a sweep's dispatch classes list them.
void to_json(Json& j, const KernelLaunch& k);
void from_json(const Json& j, KernelLaunch& k);

Json comparison_to_json(const Comparison& comparison);
// A seed as a decimal string: readers that hold JSON numbers in doubles (jq, JavaScript) keep
// every bit of a string, not of a number past 2^53.
Json seed_to_json(std::uint64_t seed);
// The "seed" field of `f` back: a decimal string, or a number (schema 1.x). FieldError otherwise.
std::uint64_t seed_from_json(const Fields& f);

}  // namespace samebits
