// `--shard I/N` and the job arrays that imply it: Slurm's SLURM_ARRAY_TASK_ID/_COUNT (relative to
// SLURM_ARRAY_TASK_MIN) and Kubernetes' indexed Jobs' JOB_COMPLETION_INDEX/JOB_COMPLETIONS.
#include "cli/shard_option.h"

#include <fmt/format.h>

#include <charconv>

#include "common/errors.h"

namespace samebits {
namespace {

std::optional<std::uint64_t> number(const std::string& text) {
  std::uint64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

Shard checked(std::optional<std::uint64_t> index, std::optional<std::uint64_t> count,
              const std::string& from, const std::string& as_given) {
  if (!index || !count || *count == 0 || *count > 1000000 || *index >= *count) {
    throw ContractError(
        fmt::format("{}: \"{}\" is not a shard; expected I/N with 0 <= I < N <= 1000000 (e.g. 0/4)",
                    from, as_given));
  }
  return {static_cast<std::uint32_t>(*index), static_cast<std::uint32_t>(*count), from};
}

}  // namespace

Shard resolve_shard(const std::string& flag,
                    const std::function<std::optional<std::string>(const char*)>& getenv) {
  if (!flag.empty()) {
    const auto slash = flag.find('/');
    if (slash == std::string::npos) return checked(std::nullopt, std::nullopt, "--shard", flag);
    return checked(number(flag.substr(0, slash)), number(flag.substr(slash + 1)), "--shard", flag);
  }
  const auto slurm_id = getenv("SLURM_ARRAY_TASK_ID");
  const auto slurm_count = getenv("SLURM_ARRAY_TASK_COUNT");
  if (slurm_id && slurm_count) {
    // Arrays may start anywhere (--array=1-8): the share is the id's offset from the minimum.
    const auto min = getenv("SLURM_ARRAY_TASK_MIN");
    const auto id = number(*slurm_id), first = min ? number(*min) : std::optional<std::uint64_t>(0);
    std::optional<std::uint64_t> index;
    if (id && first && *id >= *first) index = *id - *first;
    return checked(index, number(*slurm_count), "SLURM_ARRAY_TASK_ID/_MIN/_COUNT",
                   fmt::format("{}-{}/{}", *slurm_id, min.value_or("0"), *slurm_count));
  }
  const auto k8s_index = getenv("JOB_COMPLETION_INDEX");
  const auto k8s_count = getenv("JOB_COMPLETIONS");
  if (k8s_index && k8s_count) {
    return checked(number(*k8s_index), number(*k8s_count), "JOB_COMPLETION_INDEX/JOB_COMPLETIONS",
                   *k8s_index + "/" + *k8s_count);
  }
  return {};
}

}  // namespace samebits
