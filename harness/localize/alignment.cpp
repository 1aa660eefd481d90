// The LCS alignment (alignment.h): the common prefix and suffix first, then a dynamic program over
// the differing middle only, so two runs of one model cost little more than a pass.
#include "harness/localize/alignment.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace samebits::localize {

std::vector<AlignedPair> align(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const std::size_t n = a.size() - head - tail, m = b.size() - head - tail;
  if (n * m > (std::size_t{1} << 28))
    throw std::runtime_error("localize: the two runs' op sequences differ in " + std::to_string(n) +
                             " and " + std::to_string(m) + " ops: too far apart to align");
  // lcs[i][j]: the longest common subsequence of the middles' suffixes from i and from j.
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& {
    return lcs[i * (m + 1) + j];
  };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      at(i, j) =
          a[head + i] == b[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<AlignedPair> out;
  for (std::size_t k = 0; k < head; ++k) out.push_back({k, k});
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] == b[head + j] && at(i, j) == at(i + 1, j + 1) + 1) {
      out.push_back({head + i, head + j});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({head + i, std::nullopt});
      ++i;
    } else {
      out.push_back({std::nullopt, head + j});
      ++j;
    }
  }
  for (std::size_t k = 0; k < tail; ++k) out.push_back({a.size() - tail + k, b.size() - tail + k});
  return out;
}

}  // namespace samebits::localize
