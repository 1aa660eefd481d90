// A sweep's cases seen as observations of a dispatch map: per point (a value of the swept axis)
// the reference variant from a case's baseline side and every other layout from its variant side.
#pragma once

#include <string>
#include <vector>

#include "dispatch/classify.h"
#include "reports/model/report.h"

namespace samebits {

// The name of the reference variant: a case's contiguous baseline side.
inline constexpr const char* kReferenceVariant = "contiguous";
// A batch_invariance sweep's other variant: the item inside the batch.
inline constexpr const char* kInBatchVariant = "in_batch";

// Observations of the cases that ran (held or violated), in case order. A point is a distinct value
// of `axis` (first seen first); its reference observation comes from the first case there (its
// baseline side: the contiguous batch), and each layout_invariance case whose layout is not
// contiguous adds its variant side as variant `layout`, with the case's own baseline digest as the
// reference digest (both sides ran on the same inputs). A batch_invariance case adds its variant
// side (the item inside the batch) as variant "in_batch", against the item alone: the map then
// shows where the batch size changes the item's bits. A digest joins the outputs' SHA-256s.
std::vector<SweepObservation> sweep_observations(const std::vector<CaseResult>& cases,
                                                 const std::string& axis);

}  // namespace samebits
