// Records every dispatcher op a callable runs on this thread (C++ or Python alike) through
// RecordFunction thread-local callbacks: RAII, so a binding wraps "run this under the recorder".
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/localize/op_record.h"

namespace samebits::localize {

struct RecorderOptions {
  RowMap map;                            // where the item's rows lie in this run
  bool capture_kernels = false;          // CUDA: which kernels each op launched (CUPTI)
  std::function<std::string()> context;  // called at each top-level op's start: a Python stack
};

// While it lives, every op dispatched on the constructing thread is recorded (the recorder's own
// ops are not: RecordFunction is off inside its callbacks). One recorder per thread at a time.
// Digests and item rows are kept for the ops the callable calls itself (depth 0) only: an op's
// nested calls are recorded by name, shapes and kernels, but their outputs are intermediate
// states (a buffer cast before the sum that fills it) whose bits mean nothing to the caller.
class OpRecorder {
 public:
  explicit OpRecorder(RecorderOptions options);
  ~OpRecorder();
  OpRecorder(const OpRecorder&) = delete;
  OpRecorder& operator=(const OpRecorder&) = delete;

  // Stops recording, reads the digests back (one copy) and hands over the run's ops.
  Recording finish();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// Runs f under a recorder and returns what it recorded, with f's wall time (a device sync after).
Recording record(const std::function<void()>& f, RecorderOptions options);

}  // namespace samebits::localize
