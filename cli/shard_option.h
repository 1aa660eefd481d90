// `--shard I/N` and the job arrays that imply it: Slurm's SLURM_ARRAY_TASK_ID/_COUNT (relative to
// SLURM_ARRAY_TASK_MIN) and Kubernetes' indexed Jobs' JOB_COMPLETION_INDEX/JOB_COMPLETIONS.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace samebits {

struct Shard {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  std::string from;  // "--shard", "Slurm job array", "Kubernetes indexed Job", or "" (no shard)
};

// The flag's value wins; without it, the environment (read through `getenv`, for tests) decides;
// with neither, one shard of one. Throws ContractError naming the flag or the variables and the
// accepted form for anything else (an index not below the count, text, a count of zero).
Shard resolve_shard(const std::string& flag,
                    const std::function<std::optional<std::string>(const char*)>& getenv);

}  // namespace samebits
