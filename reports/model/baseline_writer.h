// A baseline as ordered JSON: the platform, every check's observed outcome, and (unless only
// outcomes were kept) every case's verdict and output digests, one check or case per line.
#pragma once

#include <string>

#include "common/json_document.h"
#include "reports/model/baseline.h"

namespace samebits {

Json baseline_to_json(const Baseline& baseline);
// One check or case per line, so baselines diff by line.
std::string render_baseline(const Json& baseline);

}  // namespace samebits
