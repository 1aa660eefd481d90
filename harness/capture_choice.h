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

// Throws InfrastructureError for "on" when capture cannot start.
CaptureChoice start_capture(const std::string& mode, const at::Device& device);

}  // namespace samebits
