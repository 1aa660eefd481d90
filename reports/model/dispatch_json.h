// A sweep's dispatch map as the report's "dispatch" section, both ways (nlohmann's
// to_json/from_json, found by ADL): one definition per record, so writer and reader cannot drift.
#pragma once

#include "common/json_document.h"
#include "reports/model/dispatch_map.h"

namespace samebits {

// The section: op, impl, axis, variants, kernels_captured, signature_with_grid, points (params, in
// order), classes, dispatch, results, result_classes, result_class_of_point, findings
// (reports/model/dispatch_findings.h: written, not read: they are recomputed from the map). What a
// part leaves out depends on the map: a result's kernel_differing_points, same_kernel_differences
// and where_kernels_differ are written only when kernels_captured, a result class's rule only when
// there is more than one class. Read back, whatever is absent takes its default. Errors are
// FieldErrors naming the JSON path inside the section.
void to_json(Json& j, const DispatchMap& map);
void from_json(const Json& j, DispatchMap& map);

// {id, label, signature, observations, kernels}, each kernel as case_json.h writes one.
void to_json(Json& j, const DispatchClass& c);
void from_json(const Json& j, DispatchClass& c);

// {variant, class_of_point [id or -1 per point], rules [{class, rule}]}.
void to_json(Json& j, const VariantDispatch& d);
void from_json(const Json& j, VariantDispatch& d);

// {variant, reference, points, differing_points, where_bits_differ, kernel_differing_points,
// same_kernel_differences, where_kernels_differ, relation}.
void to_json(Json& j, const ResultComparison& r);
void from_json(const Json& j, ResultComparison& r);

// {id, label, groups, points, rule}.
void to_json(Json& j, const ResultClass& c);
void from_json(const Json& j, ResultClass& c);

// {text, exact, matched, considered, points (only when not empty)}.
void to_json(Json& j, const Rule& rule);
void from_json(const Json& j, Rule& rule);

}  // namespace samebits
