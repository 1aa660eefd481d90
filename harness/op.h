// The interface every op adapter implements: what it accepts (axes, implementations, checks), how
// it makes one logical item, and how it runs a batch of items in a given layout, padding or
// chunking.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cases/layout.h"
#include "cases/sweep.h"
#include "cases/varlen.h"
#include "contracts/contract.h"
#include "harness/axis_spec.h"
#include "harness/kernel_capture.h"
#include "reports/model/kernel_launch.h"

namespace samebits {

struct ImplSpec {
  std::string name;
  std::string description;
  bool cpu = true;
  bool cuda = true;
};

// One logical unit whose output must not depend on what surrounds it: a row, a sequence, a
// (query, keys, weights) triple. Inputs live on the case's device.
struct Item {
  std::vector<at::Tensor> inputs;
  std::int64_t length = 0;  // along the op's variable-length dim, where it has one
};

// Tensors every item of a case shares (a weight matrix, norm weights).
struct Shared {
  std::vector<at::Tensor> tensors;
};

struct Output {
  std::string name;
  at::Tensor value;
};
using Outputs = std::vector<Output>;  // one item's outputs, in the order of Op::impl_outputs()

// What to make: item `index` of a case (0 is the item under test), `length` along the op's
// variable-length dim (-1: the op's own choice from the point).
struct ItemSpec {
  std::int64_t index = 0;
  std::int64_t length = -1;
};

// How to run: which implementation, which items in which order, and in which form.
struct BatchRequest {
  std::string impl;
  std::vector<const Item*> items;
  Layout layout;                       // memory layout of the batched primary input
  std::optional<PaddingMode> padding;  // variable-length items in one padded/packed batch
  bool canary_padding = false;         // pad with NaN canaries instead of neutral values
  std::int64_t chunk = 0;              // 0: one call; 1: token-by-token decode; c: chunks of c
};

// A trainer's forward over given tokens (the logprob kinds): per item of `request`, its own tokens
// (a prompt) followed by `continuations[k]` (int64 [n], those it generated), scored in one call.
struct ScoreRequest {
  BatchRequest request;
  std::vector<at::Tensor> continuations;
  // The forward starts from a leaf per item (its tokens' input embeddings, requiring grad) and
  // keeps autograd's graph, so the gradient of the log-probabilities can be taken.
  bool differentiable = false;
};

// Thrown by Op::run when an implementation cannot take a point it could not foresee (a backend
// refusing a shape): the case is recorded as skipped with this reason, not as an error.
class Unsupported : public std::runtime_error {
 public:
  explicit Unsupported(const std::string& why) : std::runtime_error(why) {}
};

class Op {
 public:
  virtual ~Op() = default;

  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ImplSpec> implementations() const = 0;
  virtual std::vector<AxisSpec> axes() const = 0;
  // Every output the op's implementations return, in order (a contract's compare.outputs).
  virtual std::vector<std::string> outputs() const = 0;
  // The outputs `impl` returns, in the order of outputs(): all of them unless the implementation
  // has fewer (sdpa: ATen's SDPA gives no log-sum-exp). A check compares what both sides return.
  virtual std::vector<std::string> impl_outputs(const std::string& impl) const { return outputs(); }
  virtual std::vector<CheckKind> checks() const = 0;
  // Whether `impl`'s calls must run one at a time on one thread: they switch process-wide state
  // (ATen's SDPA backend flags) or keep per-thread caches that would be built once per thread
  // (cuDNN's attention plans). Under --jobs such cases run in plan order on one thread.
  virtual bool serial(const std::string& impl) const { return false; }
  // Layout kinds besides contiguous that run() honours (strided, offset, padded).
  virtual std::vector<LayoutKind> layouts() const {
    return {LayoutKind::strided, LayoutKind::offset};
  }
  // Padding modes run() honours for variable-length items (empty: none).
  virtual std::vector<PaddingMode> paddings() const { return {}; }

  // A point that can never run (k > N, chunk > length): a contract error before anything runs.
  virtual std::optional<std::string> impossible(const Point& point) const { return std::nullopt; }
  // Elements one call holds at this point with `items` items (its inputs and shared tensors), so a
  // point needing absurd memory is refused before anything is allocated (0: not estimated).
  virtual double call_elements(const Point& point, double items) const { return 0; }
  // The integer axes the size guard varies with call_elements: the length of the rows a layout
  // widens (strided:<gap>, padded:<m>), and the length a `lengths` list sets item by item. ""
  // (the default): none; the guard then counts a layout's amount once and each length's places.
  virtual std::string layout_axis() const { return ""; }
  virtual std::string length_axis() const { return ""; }
  // A point this implementation cannot take on this device: the case is skipped with this reason.
  virtual std::optional<std::string> unsupported(const Point& point, const std::string& impl,
                                                 const at::Device& device) const {
    return std::nullopt;
  }

  virtual Shared make_shared(const Point& point, const at::Device& device,
                             at::Generator& gen) const {
    return {};
  }
  virtual Item make_item(const Point& point, const Shared& shared, const ItemSpec& spec,
                         const at::Device& device, at::Generator& gen) const = 0;
  // Outputs per item, in request order; each item's outputs have the same shapes whatever the
  // request's layout, padding or chunking. Wrap the ATen calls under test in a ComputeScope
  // (harness/kernel_capture.h) so kernel capture records them and not the layout's copies.
  virtual std::vector<Outputs> run(const Point& point, const Shared& shared,
                                   const BatchRequest& request) const = 0;
  // Integer properties a kernel choice may follow at this point and layout (for dispatch sweeps):
  // by default the point's integer axes and the request's batch size (its items, whatever the
  // point's "batch" axis says); ops add what their layout implies (row stride, storage offset).
  virtual PointProperties dispatch_properties(const Point& point,
                                              const BatchRequest& request) const {
    PointProperties out;
    for (const auto& item : point.values().items()) {
      if (item.value().is_number_integer() && item.key() != "batch")
        out.emplace_back(item.key(), item.value().get<std::int64_t>());
    }
    out.emplace_back("batch", static_cast<std::int64_t>(request.items.size()));
    return out;
  }
  // Whether score() runs a training forward over given tokens: an op that generates sequences
  // (decoder). The logprob kinds take only such ops.
  virtual bool scores() const { return false; }
  // Per item of `r`, in request order: "logprobs" (float32 [n]), the log-probability of each
  // continuation token given everything before it, from one forward over prompt + continuation
  // with nothing generated; with r.differentiable also "embeddings", the item's leaf [tokens, D]
  // the forward started from. Throws Unsupported where the implementation has no backward.
  virtual std::vector<Outputs> score(const Point& point, const Shared& shared,
                                     const ScoreRequest& r) const {
    throw Unsupported(name() + " scores no given tokens");
  }
  // The float64 reference of one item (for reference checks); outputs in float64/int64. Computed on
  // the CPU, or where the item lives when the op can (sdpa: its float64 GEMMs on CUDA).
  virtual Outputs reference(const Point& point, const Shared& shared, const Item& item) const {
    throw Unsupported(name() + " has no float64 reference");
  }
};

}  // namespace samebits
