// Kernel capture as a run asks for it: auto (CUPTI on CUDA when it is free), on (fail without
// it), off. Starts the capture and says in words what state it is in, for the report.
#include "harness/capture_choice.h"

#include <fmt/format.h>

#include "common/errors.h"
#include "harness/device_choice.h"

namespace samebits {

void check_capture_request(const std::string& mode, const at::Device& device) {
  if (mode == "on" && !device.is_cuda()) {
    throw ContractError(
        "--capture on: kernel capture records CUDA kernels (CUPTI), and this run is on the CPU: "
        "use --capture auto or off, or run on CUDA");
  }
}

CaptureChoice start_capture(const std::string& mode, const at::Device& device) {
  CaptureChoice choice;
  choice.state = "off";
  if (mode == "off") return choice;
  check_capture_request(mode, device);
  if (!device.is_cuda()) return choice;
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
