// What a check kind's run sees of its case: the seeded items, requests, the op run on one side
// (tagged for kernel capture) or a second stream, and the comparison of the two sides.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/kernel_capture.h"
#include "harness/op.h"
#include "harness/plan.h"
#include "reports/model/report.h"

namespace samebits {

// What a case's run produced: its verdict, the two sides in words, the comparison per output.
struct CaseRun {
  Verdict verdict = Verdict::holds;
  std::string baseline;  // the side compared against, in words
  std::string variant;
  std::vector<OutputResult> outputs;
  PointProperties baseline_properties;  // when recorded (CaseOptions::record_properties)
  PointProperties variant_properties;
};

// The CUPTI tags a case's two sides carry; with no capture, nothing is tagged. When both sides come
// from one call (position_invariance), its launches count as the variant's.
struct KernelTags {
  KernelCapture* capture = nullptr;
  std::uint64_t baseline = 0;
  std::uint64_t variant = 0;
};

struct CaseOptions {
  KernelTags tags;
  bool record_properties = false;  // keep Op::dispatch_properties of each side (sweeps)
};

enum class Side { baseline, variant };

class CaseContext {
 public:
  CaseContext(const CaseSpec& spec, const at::Device& device, const CaseOptions& options);

  const CaseSpec& spec() const { return spec_; }
  const Point& point() const { return spec_.resolved; }
  const at::Device& device() const { return device_; }
  const Shared& shared() const { return shared_; }
  // The point's "batch" axis (1 where the kind has none).
  std::int64_t batch() const { return spec_.resolved.integer_or("batch", 1); }

  // Item `index` of the case (0 is the item under test), the same tensor in every batch it joins:
  // its generator is seeded from the case seed and the index (cases/seeds.h).
  Item item(std::int64_t index, std::int64_t length = -1) const;
  // Items 0..n-1.
  std::vector<Item> items(std::int64_t n) const;
  // `probe` at `position` of a batch of `batch`, among neighbours 1, 2, ...
  std::vector<Item> batch_around(const Item& probe, std::int64_t batch,
                                 std::int64_t position) const;
  // Items 0..n-1 of the point's `lengths`, item i of length lengths[i].
  std::vector<Item> items_of_lengths() const;
  // The items of a kind's one call under test: those of `lengths` where the point has padding
  // (batch_axes.h's optional padding axes), else items 0..batch-1.
  std::vector<Item> call_items() const;

  // A request for these items, of the case's implementation unless `impl` is given.
  BatchRequest request(const std::vector<Item>& items, const std::string& impl = "") const;
  BatchRequest request(std::vector<const Item*> items, const std::string& impl = "") const;
  // A request for these items in one batch padded as the point's `padding` and `pad_fill` say
  // (neutral unless canary).
  BatchRequest padded_request(const std::vector<Item>& items) const;
  // The request of call_items(): padded where the point has padding, else dense; and the call in
  // words ("batch of 4", "3 sequences in one right batch").
  BatchRequest call_request(const std::vector<Item>& items) const;
  std::string call_words(const std::vector<Item>& items) const;

  // The op on one side, its launches tagged as that side's; with the case's shared tensors or
  // with `shared` in their place (the same tensors as gradient leaves).
  std::vector<Outputs> run(const BatchRequest& request, Side side);
  std::vector<Outputs> run(const BatchRequest& request, Side side, const Shared& shared);
  // The op's training forward over given tokens (Op::score) on one side, tagged as run() tags.
  std::vector<Outputs> score(const ScoreRequest& request, Side side);
  // The same on a second CUDA stream, waited for (Unsupported on the CPU).
  std::vector<Outputs> run_on_second_stream(const BatchRequest& request, Side side);
  // `call` with a second CUDA stream current, after the work queued so far on this one, waited
  // for (Unsupported on the CPU).
  std::vector<Outputs> on_second_stream(const std::function<std::vector<Outputs>()>& call);

  // Compares the sides output by output (stacked over items) as the check's comparison says, and
  // names them in words for the report. A kind that differentiates compares every output the
  // sides carry (the inputs' gradients); the comparison's `outputs` chose what was differentiated.
  void compare(const std::vector<Outputs>& baseline, const std::vector<Outputs>& variant,
               std::string baseline_words, std::string variant_words);

  CaseRun take_result() { return std::move(result_); }

 private:
  const CaseSpec& spec_;
  at::Device device_;
  CaseOptions options_;
  Shared shared_;
  CaseRun result_;
};

}  // namespace samebits
