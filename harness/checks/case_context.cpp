// What a check kind's run sees of its case: the seeded items, requests, the op run on one side
// (tagged for kernel capture) or a second stream, and the comparison of the two sides.
#include "harness/checks/case_context.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>

#include "cases/seeds.h"
#include "harness/diff.h"

namespace samebits {
namespace {

// One output across several items: stacked when shapes agree (mismatch index [item, ...]),
// otherwise flattened end to end.
at::Tensor gather(const std::vector<Outputs>& per_item, std::size_t output) {
  std::vector<at::Tensor> parts;
  bool same_shape = true;
  for (const auto& outs : per_item) {
    parts.push_back(outs.at(output).value);
    same_shape = same_shape && parts.back().sizes() == parts.front().sizes();
  }
  if (same_shape) return at::stack(parts);
  for (auto& p : parts) p = p.reshape({-1});
  return at::cat(parts);
}

bool selected(const Comparison& how, const std::string& name) {
  return how.outputs.empty() ||
         std::find(how.outputs.begin(), how.outputs.end(), name) != how.outputs.end();
}

}  // namespace

CaseContext::CaseContext(const CaseSpec& spec, const at::Device& device, const CaseOptions& options)
    : spec_(spec), device_(device), options_(options) {
  at::Generator gen = make_generator(device, item_seed(spec.seed, kSharedStream));
  shared_ = spec.op->make_shared(spec.resolved, device, gen);
}

Item CaseContext::item(std::int64_t index, std::int64_t length) const {
  at::Generator gen =
      make_generator(device_, item_seed(spec_.seed, static_cast<std::uint64_t>(index)));
  return spec_.op->make_item(spec_.resolved, shared_, ItemSpec{index, length}, device_, gen);
}

std::vector<Item> CaseContext::items(std::int64_t n) const {
  std::vector<Item> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(item(i));
  return out;
}

std::vector<Item> CaseContext::batch_around(const Item& probe, std::int64_t batch,
                                            std::int64_t position) const {
  std::vector<Item> out;
  std::int64_t neighbour = 1;
  for (std::int64_t i = 0; i < batch; ++i) out.push_back(i == position ? probe : item(neighbour++));
  return out;
}

BatchRequest CaseContext::request(const std::vector<Item>& items, const std::string& impl) const {
  std::vector<const Item*> pointers;
  for (const auto& i : items) pointers.push_back(&i);
  return request(std::move(pointers), impl);
}

BatchRequest CaseContext::request(std::vector<const Item*> items, const std::string& impl) const {
  BatchRequest r;
  r.impl = impl.empty() ? spec_.impl : impl;
  r.items = std::move(items);
  return r;
}

std::vector<Outputs> CaseContext::run(const BatchRequest& request, Side side) {
  const bool variant = side == Side::variant;
  if (options_.record_properties) {
    (variant ? result_.variant_properties : result_.baseline_properties) =
        spec_.op->dispatch_properties(spec_.resolved, request);
  }
  const KernelCapture::Pending pending(
      options_.tags.capture, variant ? options_.tags.variant : options_.tags.baseline);
  return spec_.op->run(spec_.resolved, shared_, request);
}

std::vector<Outputs> CaseContext::run_on_second_stream(const BatchRequest& request, Side side) {
  if (!device_.is_cuda()) throw Unsupported("a second stream exists only on CUDA");
  const c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(false, device_.index());
  std::vector<Outputs> out;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    out = run(request, side);
  }
  stream.synchronize();
  return out;
}

void CaseContext::compare(const std::vector<Outputs>& baseline, const std::vector<Outputs>& variant,
                          std::string baseline_words, std::string variant_words) {
  result_.baseline = std::move(baseline_words);
  result_.variant = std::move(variant_words);
  const auto names = spec_.op->outputs();
  for (std::size_t o = 0; o < names.size(); ++o) {
    if (!selected(spec_.check->compare, names[o])) continue;
    const at::Tensor b = gather(baseline, o);
    const at::Tensor v = gather(variant, o);
    OutputResult out;
    out.name = names[o];
    out.baseline_sha256 = tensor_sha256(b);
    out.variant_sha256 = tensor_sha256(v);
    out.diff = compare_tensors(b, v, spec_.check->compare);
    if (!out.diff.within) result_.verdict = Verdict::violated;
    result_.outputs.push_back(std::move(out));
  }
}

}  // namespace samebits
