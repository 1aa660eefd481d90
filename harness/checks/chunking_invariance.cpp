// chunking_invariance: one prefill vs the same sequence in chunks (chunked prefill) or token by
// token (decode over a KV cache): the same query must meet its keys in the same order.
#include <fmt/format.h>

#include "harness/checks/batch_axes.h"
#include "harness/checks/check.h"

namespace samebits {
namespace {

class ChunkingInvariance final : public Check {
 public:
  CheckKind kind() const override { return CheckKind::chunking_invariance; }
  std::string compares() const override {
    return "one prefill vs chunked prefill (chunk > 1) vs token-by-token decode (chunk 1)";
  }
  std::vector<AxisSpec> axes() const override {
    return {batch_axis(1),
            {"chunk",
             AxisSpec::Type::integer,
             nullptr,
             {},
             "chunk length; 1 is token-by-token decode"}};
  }
  std::optional<std::string> impossible(const Point& p) const override {
    if (p.integer("chunk") < 1) return "chunk must be at least 1";
    return std::nullopt;
  }
  void run(CaseContext& c) const override {
    const auto items = c.items(c.batch());
    const auto whole = c.run(c.request(items), Side::baseline);
    BatchRequest chunked = c.request(items);
    chunked.chunk = c.point().integer("chunk");
    const auto pieces = c.run(chunked, Side::variant);
    c.compare(whole, pieces, "one prefill",
              chunked.chunk == 1 ? "token-by-token decode over a KV cache"
                                 : fmt::format("chunked prefill, chunks of {}", chunked.chunk));
  }
};

}  // namespace

SAMEBITS_REGISTER_CHECK(chunking_invariance, ChunkingInvariance)

}  // namespace samebits
