// `samebits run --isolate`: the run's cases in child processes, so a case that crashes (a signal,
// an illegal memory access) or hangs (--case-timeout) becomes that case's verdict, not the run's
// end.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace samebits {

struct IsolateOptions {
  std::string journal;                 // the run's journal (what the children resume)
  std::optional<double> case_timeout;  // seconds, or none
};

// Runs `argv` (the user's `samebits run ...` command) in children until every case has a verdict;
// returns the exit code of the run (the last child's, which wrote the report). Never initializes
// CUDA: each child does, and a context one of them broke dies with it.
int run_isolated(const std::vector<std::string>& argv, const IsolateOptions& options);

}  // namespace samebits
