// A sweep's cases seen as observations of a dispatch map: per point (a value of the swept axis)
// the reference variant from a case's baseline side and every other layout from its variant side.
#include "dispatch/observations.h"

#include <map>

namespace samebits {
namespace {

std::string digest_of(const CaseResult& c, bool variant) {
  std::string digest;
  for (const auto& o : c.outputs) {
    if (!digest.empty()) digest += ';';
    if (c.outputs.size() > 1) digest += o.name + ':';
    digest += variant ? o.variant_sha256 : o.baseline_sha256;
  }
  return digest;
}

}  // namespace

std::vector<SweepObservation> sweep_observations(const std::vector<CaseResult>& cases,
                                                 const std::string& axis) {
  std::vector<SweepObservation> out;
  std::map<std::string, std::int64_t> point_of;  // the axis value, as JSON text -> point
  for (const auto& c : cases) {
    if (c.verdict != Verdict::holds && c.verdict != Verdict::violated) continue;
    const Json value = c.params.contains(axis) ? c.params.at(axis) : Json(nullptr);
    const auto [it, first] =
        point_of.emplace(value.dump(), static_cast<std::int64_t>(point_of.size()));
    SweepObservation o;
    o.point = it->second;
    o.params = Json{{axis, value}};
    if (first) {
      o.variant = kReferenceVariant;
      o.properties = c.baseline_properties;
      o.kernels = c.baseline_kernels;
      o.digest = digest_of(c, false);
      out.push_back(o);
    }
    // The case's variant side, against its own baseline side (both ran on the same inputs).
    std::string variant;
    if (c.kind == CheckKind::batch_invariance) {
      variant = kInBatchVariant;
    } else if (c.kind == CheckKind::layout_invariance && c.params.contains("layout")) {
      variant = c.params.at("layout").get<std::string>();
    }
    if (variant.empty() || variant == kReferenceVariant) continue;
    o.variant = variant;
    o.properties = c.variant_properties;
    o.kernels = c.variant_kernels;
    o.digest = digest_of(c, true);
    o.reference_digest = digest_of(c, false);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace samebits
