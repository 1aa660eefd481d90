// What the logprob kinds share: the tokens a serving run generated, read back per item as the
// continuations a training forward scores (Op::score).
#pragma once

#include <fmt/format.h>

#include <vector>

#include "harness/checks/case_context.h"

namespace samebits {

// Per item of a serving run, its "tokens" output (the op generates: Op::scores()).
inline std::vector<at::Tensor> generated_tokens(const CaseContext& c,
                                                const std::vector<Outputs>& served) {
  std::vector<at::Tensor> out;
  for (const auto& outs : served) {
    const Output* tokens = nullptr;
    for (const auto& o : outs) tokens = o.name == "tokens" ? &o : tokens;
    if (!tokens)
      throw Unsupported(fmt::format("op {} ({}) returns no \"tokens\" output to score",
                                    c.spec().op->name(), c.spec().impl));
    out.push_back(tokens->value);
  }
  return out;
}

}  // namespace samebits
