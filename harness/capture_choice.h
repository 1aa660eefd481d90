// Kernel capture as a run asks for it: auto (CUPTI on CUDA when it is free), on (fail without
// it), off. Starts the capture and says in words what state it is in, for the report.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>

#include "harness/kernel_capture.h"

namespace samebits {

struct CaptureChoice {
  std::unique_ptr<KernelCapture> capture;  // null when off or unavailable
  std::string state;                       // "cupti", "off", or "unavailable: <why>"
};

// Throws ContractError (a usage error) for "on" on the CPU, where there is nothing to capture.
void check_capture_request(const std::string& mode, const at::Device& device);
// Throws as check_capture_request does, and InfrastructureError for "on" when CUPTI cannot start
// on CUDA (a profiler holds it).
CaptureChoice start_capture(const std::string& mode, const at::Device& device);

}  // namespace samebits
