// Runs one case: builds its items from the case seed, runs the implementation the way the check
// kind says (alone vs batched, two layouts, two streams, ...) and compares the two sides.
#include "harness/case_runner.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <fmt/format.h>

#include <algorithm>

#include "cases/generators.h"
#include "contracts/digest.h"
#include "harness/check_axes.h"
#include "harness/diff.h"

namespace samebits {
namespace {

// Every item and the shared tensors get their own generator, seeded from the case seed, so item k
// is the same tensor in every batch it joins.
class CaseInputs {
 public:
  CaseInputs(const CaseSpec& spec, const at::Device& device) : spec_(spec), device_(device) {
    at::Generator gen = make_generator(device, derive_seed(spec.seed, 0xffff));
    shared_ = spec.op->make_shared(spec.resolved, device, gen);
  }
  const Shared& shared() const { return shared_; }
  Item make(std::int64_t index, std::int64_t length = -1) const {
    at::Generator gen =
        make_generator(device_, derive_seed(spec_.seed, static_cast<std::uint64_t>(index)));
    return spec_.op->make_item(spec_.resolved, shared_, ItemSpec{index, length}, device_, gen);
  }

 private:
  const CaseSpec& spec_;
  at::Device device_;
  Shared shared_;
};

BatchRequest make_request(const std::string& impl, std::vector<const Item*> items) {
  BatchRequest request;
  request.impl = impl;
  request.items = std::move(items);
  return request;
}

// Runs the op for one side of the comparison, its launches tagged for kernel capture.
std::vector<Outputs> run(const CaseSpec& spec, const Shared& shared, BatchRequest request,
                         const KernelTags& tags, bool variant) {
  if (request.impl.empty()) request.impl = spec.impl;
  const KernelCapture::Pending pending(tags.capture, variant ? tags.variant : tags.baseline);
  return spec.op->run(spec.resolved, shared, request);
}

std::vector<const Item*> pointers(const std::vector<Item>& items) {
  std::vector<const Item*> out;
  for (const auto& i : items) out.push_back(&i);
  return out;
}

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

void compare_sides(const CaseSpec& spec, const std::vector<Outputs>& baseline,
                   const std::vector<Outputs>& variant, CaseRun& result) {
  const auto names = spec.op->outputs();
  for (std::size_t o = 0; o < names.size(); ++o) {
    if (!selected(spec.check->compare, names[o])) continue;
    const at::Tensor b = gather(baseline, o);
    const at::Tensor v = gather(variant, o);
    OutputResult out;
    out.name = names[o];
    out.baseline_sha256 = tensor_sha256(b);
    out.variant_sha256 = tensor_sha256(v);
    out.diff = compare_tensors(b, v, spec.check->compare);
    if (!out.diff.within) result.verdict = Verdict::violated;
    result.outputs.push_back(std::move(out));
  }
}

std::vector<Outputs> on_second_stream(const CaseSpec& spec, const Shared& shared,
                                      const BatchRequest& request, const at::Device& device,
                                      const KernelTags& tags) {
  if (!device.is_cuda()) throw Unsupported("a second stream exists only on CUDA");
  const c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(false, device.index());
  std::vector<Outputs> out;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    out = run(spec, shared, request, tags, true);
  }
  stream.synchronize();
  return out;
}

// The item under test (index 0) at `position` among `batch - 1` neighbours (indices 1, 2, ...).
std::vector<Item> batch_around(const CaseInputs& inputs, const Item& probe, std::int64_t batch,
                               std::int64_t position) {
  std::vector<Item> items;
  std::int64_t neighbour = 1;
  for (std::int64_t i = 0; i < batch; ++i)
    items.push_back(i == position ? probe : inputs.make(neighbour++));
  return items;
}

}  // namespace

CaseRun run_case(const CaseSpec& spec, const at::Device& device, const KernelTags& tags) {
  const Point& p = spec.resolved;
  if (auto why = spec.op->unsupported(p, spec.impl, device)) throw Unsupported(*why);
  const CaseInputs inputs(spec, device);
  const Shared& shared = inputs.shared();
  CaseRun result;
  const std::int64_t batch = p.integer_or("batch", 1);
  auto batch_of = [&](std::int64_t n) {
    std::vector<Item> items;
    for (std::int64_t i = 0; i < n; ++i) items.push_back(inputs.make(i));
    return items;
  };

  switch (spec.check->kind) {
    case CheckKind::determinism: {
      const auto items = batch_of(batch);
      const BatchRequest request = make_request(spec.impl, pointers(items));
      const auto first = run(spec, shared, request, tags, false);
      const bool second_stream = p.text("repeat") == "second_stream";
      const auto second = second_stream ? on_second_stream(spec, shared, request, device, tags)
                                        : run(spec, shared, request, tags, true);
      result.baseline = fmt::format("first call, batch of {}", batch);
      result.variant =
          second_stream ? "second call on a second CUDA stream" : "second call, same stream";
      compare_sides(spec, first, second, result);
      break;
    }
    case CheckKind::batch_invariance: {
      const Item probe = inputs.make(0);
      const auto alone = run(spec, shared, make_request(spec.impl, {&probe}), tags, false);
      const std::int64_t pos = position_index(p.text("position"), batch);
      const auto items = batch_around(inputs, probe, batch, pos);
      const auto batched = run(spec, shared, make_request(spec.impl, pointers(items)), tags, true);
      result.baseline = "item alone (batch of 1)";
      result.variant = fmt::format("item at position {} of a batch of {}", pos, batch);
      compare_sides(spec, alone, {batched.at(static_cast<std::size_t>(pos))}, result);
      break;
    }
    case CheckKind::position_invariance: {
      const Item probe = inputs.make(0);
      const std::int64_t pos = position_index(p.text("position"), batch);
      auto items = batch_around(inputs, probe, batch, pos);
      items[0] = probe;
      const auto batched = run(spec, shared, make_request(spec.impl, pointers(items)), tags, true);
      result.baseline = fmt::format("item at position 0 of a batch of {}", batch);
      result.variant = fmt::format("the same item at position {}", pos);
      compare_sides(spec, {batched.at(0)}, {batched.at(static_cast<std::size_t>(pos))}, result);
      break;
    }
    case CheckKind::layout_invariance: {
      const auto items = batch_of(batch);
      const auto contiguous =
          run(spec, shared, make_request(spec.impl, pointers(items)), tags, false);
      BatchRequest laid_out = make_request(spec.impl, pointers(items));
      laid_out.layout = parse_layout(p.text("layout"));
      const auto other = run(spec, shared, laid_out, tags, true);
      result.baseline = fmt::format("contiguous batch of {}", batch);
      result.variant = fmt::format("the same values laid out {}", laid_out.layout.text);
      compare_sides(spec, contiguous, other, result);
      break;
    }
    case CheckKind::padding_invariance: {
      std::vector<Item> items;
      std::int64_t index = 0;
      for (auto len : p.integers("lengths")) items.push_back(inputs.make(index++, len));
      std::vector<Outputs> alone;
      for (const auto& item : items)
        alone.push_back(run(spec, shared, make_request(spec.impl, {&item}), tags, false).at(0));
      BatchRequest together = make_request(spec.impl, pointers(items));
      together.padding = parse_padding_mode(p.text("padding"));
      together.canary_padding = p.text("pad_fill") == "canary";
      const auto batched = run(spec, shared, together, tags, true);
      result.baseline = "each sequence alone";
      result.variant = fmt::format("the sequences in one {} batch ({} padding)", p.text("padding"),
                                   p.text("pad_fill"));
      compare_sides(spec, alone, batched, result);
      break;
    }
    case CheckKind::chunking_invariance: {
      const auto items = batch_of(batch);
      const auto whole = run(spec, shared, make_request(spec.impl, pointers(items)), tags, false);
      BatchRequest chunked = make_request(spec.impl, pointers(items));
      chunked.chunk = p.integer("chunk");
      const auto pieces = run(spec, shared, chunked, tags, true);
      result.baseline = "one prefill";
      result.variant = chunked.chunk == 1
                           ? "token-by-token decode over a KV cache"
                           : fmt::format("chunked prefill, chunks of {}", chunked.chunk);
      compare_sides(spec, whole, pieces, result);
      break;
    }
    case CheckKind::equivalence: {
      const std::string& against = spec.check->against;
      if (auto why = spec.op->unsupported(p, against, device))
        throw Unsupported(against + ": " + *why);
      const auto items = batch_of(batch);
      const auto theirs = run(spec, shared, make_request(against, pointers(items)), tags, false);
      const auto ours = run(spec, shared, make_request(spec.impl, pointers(items)), tags, true);
      result.baseline = against;
      result.variant = spec.impl;
      compare_sides(spec, theirs, ours, result);
      break;
    }
    case CheckKind::reference: {
      const auto items = batch_of(batch);
      std::vector<Outputs> reference;
      for (const auto& item : items) reference.push_back(spec.op->reference(p, shared, item));
      const auto ours = run(spec, shared, make_request(spec.impl, pointers(items)), tags, true);
      for (auto& outs : reference) {
        for (auto& o : outs) o.value = o.value.to(device);
      }
      result.baseline = "float64 CPU reference";
      result.variant = spec.impl;
      compare_sides(spec, reference, ours, result);
      break;
    }
  }
  return result;
}

}  // namespace samebits
