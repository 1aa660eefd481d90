// Records which CUDA kernels ran, with grid, block, registers and shared memory, through CUPTI's
// activity API; each launch is tied to the tag (an external correlation id) active when it was
// made.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

class KernelCapture {
 public:
  // Starts tracing. CUPTI serves one client per process: under a profiler or compute-sanitizer, or
  // while another KernelCapture lives, this returns nullptr and says why in *why_not.
  static std::unique_ptr<KernelCapture> start(std::string* why_not);
  ~KernelCapture();
  KernelCapture(const KernelCapture&) = delete;
  KernelCapture& operator=(const KernelCapture&) = delete;

  // Launches made on this thread while a Tag lives carry its id (ids start at 1; 0 means untagged).
  class Tag {
   public:
    Tag(KernelCapture* capture, std::uint64_t id);  // capture may be null: then a no-op
    ~Tag();
    Tag(const Tag&) = delete;
    Tag& operator=(const Tag&) = delete;

   private:
    bool active_ = false;
  };

  // The id the ComputeScopes opened on this thread while it lives will tag their launches with:
  // the runner sets it around an op call, the op marks the calls under test (see ComputeScope).
  class Pending {
   public:
    Pending(KernelCapture* capture, std::uint64_t id);
    ~Pending();
    Pending(const Pending&) = delete;
    Pending& operator=(const Pending&) = delete;

   private:
    KernelCapture* previous_capture_;
    std::uint64_t previous_id_;
  };

  // Waits for the device, flushes CUPTI's buffers, and hands over every tagged launch recorded
  // since the last call, grouped by tag; identical launches (name and shape) are merged with a
  // count. Launches made while it runs (other threads) come with a later call: a launch whose tag
  // record has not arrived yet, or a tag record whose launch has not, waits one call for its pair.
  std::unordered_map<std::uint64_t, std::vector<KernelLaunch>> take();
  // Records CUPTI dropped because its buffers were full (kernels missing from take()).
  std::uint64_t dropped_records() const;

 private:
  KernelCapture() = default;
};

// Adds `more` to `into`, merging launches of the same name and shape (counts and durations add);
// first-seen order.
void merge_launches(std::vector<KernelLaunch>& into, std::vector<KernelLaunch>&& more);

// Marks the ATen calls an op adapter exists to test, so kernel capture records them and not the
// copies that build a layout or a padded batch around them. Nested scopes tag once; with no
// Pending tag (or no capture) on this thread a scope does nothing.
class ComputeScope {
 public:
  ComputeScope();
  ~ComputeScope();
  ComputeScope(const ComputeScope&) = delete;
  ComputeScope& operator=(const ComputeScope&) = delete;

 private:
  std::unique_ptr<KernelCapture::Tag> tag_;
};

// A demangled C++ symbol, or the input when it does not demangle.
std::string demangle(const char* symbol);

}  // namespace samebits
