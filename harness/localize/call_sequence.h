// A run made of several calls (a prefill in chunks, a decode one token per step) as one recording
// and the windows of the whole run's rows its calls stand for, so localize compares it as any run.
#pragma once

#include <string>
#include <vector>

#include "harness/localize/divergence.h"

namespace samebits::localize {

struct RecordedCall {
  std::string name;     // "chunk.1", "token.5": its ops' regions start with it
  Recording recording;  // its map's length: the item rows it holds, the next ones of the whole run
};

struct CallSequence {
  Recording joined;             // every call's ops in call order; its map: all their rows
  std::vector<Window> windows;  // one per call, rows consecutive from 0
};

// Joins calls recorded one by one: ordinals and parents renumbered, each region under its call's
// name ("chunk.1/layer.0.attn"), wall times summed; kernels captured only if every call's were.
// Throws std::invalid_argument where there is no call or a call holds no rows.
CallSequence join_calls(std::vector<RecordedCall> calls);

}  // namespace samebits::localize
