// Kernel capture as a run asks for it: auto (CUPTI on CUDA when it is free), on (fail without
// it), off. Starts the capture and says in words what state it is in, for the report.
#include "harness/capture_choice.h"

#include <fmt/format.h>

#include "harness/device_choice.h"

namespace samebits {

CaptureChoice start_capture(const std::string& mode, const at::Device& device) {
  CaptureChoice choice;
  choice.state = "off";
  if (mode == "off") return choice;
  if (!device.is_cuda()) {
    if (mode == "on")
      throw InfrastructureError("--capture on: kernel capture needs CUDA; this run is on the CPU");
    return choice;
  }
  std::string why_not;
  choice.capture = KernelCapture::start(&why_not);
  if (choice.capture) {
    choice.state = "cupti";
  } else if (mode == "on") {
    throw InfrastructureError("--capture on: " + why_not);
  } else {
    choice.state = "unavailable: " + why_not;
    fmt::print(stderr, "samebits: kernel capture {}; going on without kernel lists\n",
               choice.state);
  }
  return choice;
}

}  // namespace samebits
