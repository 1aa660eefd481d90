// Runs one op across one swept axis under several memory layouts, keeping the work on the device:
// for every point and layout it records the kernels launched and the digest of the same item's
// output.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cases/sweep.h"
#include "harness/kernel_capture.h"
#include "harness/op.h"
#include "reports/dispatch.h"

namespace samebits {

struct DispatchSweep {
  const Op* op = nullptr;
  std::string impl;
  Point fixed;                        // axes held fixed; the op's defaults fill the rest
  std::string axis;                   // an axis of the op, or "batch" (items per call)
  std::vector<Json> values;           // the swept values, in order
  std::vector<std::string> variants;  // layouts; the first is the reference ("contiguous")
  std::int64_t batch = 1;             // items per call unless the axis is "batch"
  std::uint64_t seed = 0;
};

struct DispatchSweepResult {
  std::vector<SweepObservation> observations;
  std::vector<std::string> skipped;  // "N=130 padded:4: why", for points an implementation refused
};

// Validates the sweep (throws ContractError naming the bad axis or value, before anything runs),
// then runs it. With a capture, every observation carries its kernels.
DispatchSweepResult run_dispatch_sweep(const DispatchSweep& sweep, const at::Device& device,
                                       KernelCapture* capture);

}  // namespace samebits
