// What a check kind's run sees of its case: the seeded items, requests, the op run on one side
// (tagged for kernel capture) or a second stream, and the comparison of the two sides.
#include "harness/checks/case_context.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "cases/seeds.h"
#include "cases/varlen.h"
#include "harness/check_spec.h"
#include "harness/diff.h"

namespace samebits {
namespace {

// The output named `name` of one item, or nothing where its implementation has no such output.
const at::Tensor* find_output(const Outputs& outs, const std::string& name) {
  for (const auto& o : outs) {
    if (o.name == name) return &o.value;
  }
  return nullptr;
}

// One output across several items: stacked when shapes agree (mismatch index [item, ...]),
// otherwise flattened end to end; nothing where no item has it.
std::optional<at::Tensor> gather(const std::vector<Outputs>& per_item, const std::string& name) {
  std::vector<at::Tensor> parts;
  bool same_shape = true;
  for (const auto& outs : per_item) {
    const at::Tensor* t = find_output(outs, name);
    if (!t) continue;
    parts.push_back(*t);
    same_shape = same_shape && parts.back().sizes() == parts.front().sizes();
  }
  if (parts.empty()) return std::nullopt;
  if (parts.size() != per_item.size())
    throw std::logic_error("output " + name + " is missing from some items of one side");
  if (same_shape) return at::stack(parts);
  for (auto& p : parts) p = p.reshape({-1});
  return at::cat(parts);
}

std::vector<std::string> names_of(const Outputs& outs) {
  std::vector<std::string> names;
  for (const auto& o : outs) names.push_back(o.name);
  return names;
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

std::vector<Item> CaseContext::items_of_lengths() const {
  std::vector<Item> out;
  std::int64_t index = 0;
  for (auto len : point().integers("lengths")) out.push_back(item(index++, len));
  return out;
}

std::vector<Item> CaseContext::call_items() const {
  return point().has("padding") ? items_of_lengths() : items(batch());
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

BatchRequest CaseContext::padded_request(const std::vector<Item>& items) const {
  BatchRequest r = request(items);
  r.padding = parse_padding_mode(point().text("padding"));
  r.canary_padding = point().text_or("pad_fill", "neutral") == "canary";
  return r;
}

BatchRequest CaseContext::call_request(const std::vector<Item>& items) const {
  return point().has("padding") ? padded_request(items) : request(items);
}

std::string CaseContext::call_words(const std::vector<Item>& items) const {
  if (!point().has("padding")) return fmt::format("batch of {}", items.size());
  return fmt::format("{} sequences in one {} batch", items.size(), point().text("padding"));
}

std::vector<Outputs> CaseContext::run(const BatchRequest& request, Side side) {
  return run(request, side, shared_);
}

std::vector<Outputs> CaseContext::run(const BatchRequest& request, Side side,
                                      const Shared& shared) {
  const bool variant = side == Side::variant;
  if (options_.record_properties) {
    (variant ? result_.variant_properties : result_.baseline_properties) =
        spec_.op->dispatch_properties(spec_.resolved, request);
  }
  const KernelCapture::Pending pending(options_.tags.capture,
                                       variant ? options_.tags.variant : options_.tags.baseline);
  std::vector<Outputs> out = spec_.op->run(spec_.resolved, shared, request);
  // Every item carries the outputs its implementation declares, so no comparison can miss one.
  const auto declared = spec_.op->impl_outputs(request.impl);
  for (const auto& outs : out) {
    if (names_of(outs) != declared) {
      throw std::logic_error(
          fmt::format("op {} ({}) returned outputs [{}], declared [{}]", spec_.op->name(),
                      request.impl, fmt::join(names_of(outs), ", "), fmt::join(declared, ", ")));
    }
  }
  return out;
}

std::vector<Outputs> CaseContext::score(const ScoreRequest& request, Side side) {
  const bool variant = side == Side::variant;
  if (options_.record_properties) {
    (variant ? result_.variant_properties : result_.baseline_properties) =
        spec_.op->dispatch_properties(spec_.resolved, request.request);
  }
  const KernelCapture::Pending pending(options_.tags.capture,
                                       variant ? options_.tags.variant : options_.tags.baseline);
  std::vector<Outputs> out = spec_.op->score(spec_.resolved, shared_, request);
  if (out.size() != request.request.items.size()) {
    throw std::logic_error(fmt::format("op {} ({}) scored {} items of {}", spec_.op->name(),
                                       request.request.impl, out.size(),
                                       request.request.items.size()));
  }
  return out;
}

std::vector<Outputs> CaseContext::run_on_second_stream(const BatchRequest& request, Side side) {
  return on_second_stream([&] { return run(request, side); });
}

std::vector<Outputs> CaseContext::on_second_stream(
    const std::function<std::vector<Outputs>()>& call) {
  if (!device_.is_cuda()) throw Unsupported("a second stream exists only on CUDA");
  const c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(false, device_.index());
  // The second stream starts after the work queued so far on this one (the items' inputs):
  // without the wait it may read them before they are written.
  at::cuda::CUDAEvent inputs_ready;
  inputs_ready.record(c10::cuda::getCurrentCUDAStream(device_.index()));
  inputs_ready.block(stream);
  std::vector<Outputs> out;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    out = call();
  }
  stream.synchronize();
  return out;
}

void CaseContext::compare(const std::vector<Outputs>& baseline, const std::vector<Outputs>& variant,
                          std::string baseline_words, std::string variant_words) {
  result_.baseline = std::move(baseline_words);
  result_.variant = std::move(variant_words);
  // The outputs both sides return: all of the implementation's own when it is on both sides;
  // against another implementation or the reference, those they share. The gradients of a kind
  // that differentiates are named by the sides themselves.
  const bool gradients = check_spec_for(spec_.check->kind).differentiates();
  const std::vector<std::string> names =
      gradients && !baseline.empty() ? names_of(baseline.front()) : spec_.op->outputs();
  for (const auto& name : names) {
    if (!gradients && !selected(spec_.check->compare, name)) continue;
    const std::optional<at::Tensor> b = gather(baseline, name);
    const std::optional<at::Tensor> v = gather(variant, name);
    if (!b || !v) continue;
    OutputResult out;
    out.name = name;
    // Small outputs are compared on the host, after one copy of both sides.
    at::Tensor base = *b;
    at::Tensor var = *v;
    if (auto host = small_pair_on_host(base, var)) std::tie(base, var) = std::move(*host);
    out.diff = compare_tensors(base, var, spec_.check->compare);
    // The digests: once where a comparison of bits found none differing (the same dtype, shape
    // and bytes), else both sides together (one copy to the host).
    const CompareMode mode = spec_.check->compare.mode;
    const bool same_bits = (mode == CompareMode::bitwise || mode == CompareMode::indices) &&
                           out.diff.mismatched == 0 && base.scalar_type() == var.scalar_type();
    if (same_bits) {
      out.variant_sha256 = tensor_sha256(var);
      out.baseline_sha256 = out.variant_sha256;
    } else {
      std::tie(out.baseline_sha256, out.variant_sha256) = tensor_sha256_pair(base, var);
    }
    if (!out.diff.within) result_.verdict = Verdict::violated;
    result_.outputs.push_back(std::move(out));
  }
  if (result_.outputs.empty()) {
    throw Unsupported(fmt::format(
        "{} and {} share none of the outputs compared ({})", result_.baseline, result_.variant,
        spec_.check->compare.outputs.empty()
            ? fmt::format("{}", fmt::join(spec_.op->outputs(), ", "))
            : fmt::format("{}", fmt::join(spec_.check->compare.outputs, ", "))));
  }
}

}  // namespace samebits
