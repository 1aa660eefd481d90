// Runs one case: builds its items from the case seed, runs the implementation the way the check
// kind says (alone vs batched, two layouts, two streams, ...) and compares the two sides.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "harness/kernel_capture.h"
#include "harness/plan.h"
#include "reports/report.h"

namespace samebits {

struct CaseRun {
  Verdict verdict = Verdict::holds;
  std::string baseline;  // the side compared against, in words
  std::string variant;
  std::vector<OutputResult> outputs;
};

// The CUPTI tags a case's two sides carry; with no capture, nothing is tagged. When both sides come
// from one call (position_invariance), its launches count as the variant's.
struct KernelTags {
  KernelCapture* capture = nullptr;
  std::uint64_t baseline = 0;
  std::uint64_t variant = 0;
};

// Throws Unsupported when the case cannot run here (recorded as skipped); any other exception
// is the case's error.
CaseRun run_case(const CaseSpec& spec, const at::Device& device, const KernelTags& tags = {});

}  // namespace samebits
