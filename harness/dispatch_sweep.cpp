// Runs one op across one swept axis under several memory layouts, keeping the work on the device:
// for every point and layout it records the kernels launched and the digest of the same item's
// output.
#include "harness/dispatch_sweep.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cases/generators.h"
#include "contracts/contract_error.h"
#include "contracts/digest.h"

namespace samebits {
namespace {

// Point = fixed axes + the swept value + the op's defaults for whatever is still missing.
Point resolve(const DispatchSweep& s, const Json& value) {
  Point p = s.fixed;
  if (s.axis != "batch") p.set(s.axis, value);
  for (const auto& a : s.op->axes()) {
    if (!p.has(a.name) && !a.fallback.is_null()) p.set(a.name, a.fallback);
  }
  return p;
}

void validate(const DispatchSweep& s) {
  std::vector<std::string> axes = {"batch"};
  for (const auto& a : s.op->axes()) axes.push_back(a.name);
  if (std::find(axes.begin(), axes.end(), s.axis) == axes.end()) {
    throw ContractError(fmt::format("--vary: op {} has no axis \"{}\"; accepted: {}", s.op->name(),
                                    s.axis, fmt::join(axes, ", ")));
  }
  for (const auto& item : s.fixed.values().items()) {
    if (std::find(axes.begin(), axes.end(), item.key()) == axes.end() || item.key() == "batch") {
      throw ContractError(fmt::format("--set: op {} has no axis \"{}\"; accepted: {}", s.op->name(),
                                      item.key(), fmt::join(axes.begin() + 1, axes.end(), ", ")));
    }
  }
  std::vector<std::string> impls;
  for (const auto& i : s.op->implementations()) impls.push_back(i.name);
  if (std::find(impls.begin(), impls.end(), s.impl) == impls.end()) {
    throw ContractError(fmt::format("--impl: op {} has no implementation \"{}\"; accepted: {}",
                                    s.op->name(), s.impl, fmt::join(impls, ", ")));
  }
  const auto kinds = s.op->layouts();
  for (const auto& v : s.variants) {
    Layout layout;
    try {
      layout = parse_layout(v);
    } catch (const std::invalid_argument& e) {
      throw ContractError(fmt::format("--layouts: {}", e.what()));
    }
    if (layout.kind != LayoutKind::contiguous &&
        std::find(kinds.begin(), kinds.end(), layout.kind) == kinds.end()) {
      throw ContractError(
          fmt::format("--layouts: op {} does not take layout \"{}\"", s.op->name(), v));
    }
  }
  for (const auto& value : s.values) {
    if (s.axis == "batch" && (!value.is_number_integer() || value.get<std::int64_t>() < 1)) {
      throw ContractError(
          fmt::format("--vary batch: sizes are positive integers, got {}", value.dump()));
    }
    const Point p = resolve(s, value);
    for (const auto& a : s.op->axes()) {
      if (!p.has(a.name)) {
        throw ContractError(fmt::format("op {} needs axis \"{}\" ({}): give it with --set {}=VALUE",
                                        s.op->name(), a.name, a.help, a.name));
      }
    }
    if (auto why = s.op->impossible(p)) {
      throw ContractError(fmt::format("impossible point {}: {}", p.label(), *why));
    }
  }
}

// The item under test's outputs as one flat byte tensor, still on the device.
at::Tensor output_bytes(const Outputs& outputs) {
  std::vector<at::Tensor> parts;
  for (const auto& o : outputs) parts.push_back(o.value.contiguous().view({-1}).view(at::kByte));
  return at::cat(parts);
}

}  // namespace

DispatchSweepResult run_dispatch_sweep(const DispatchSweep& s, const at::Device& device,
                                       KernelCapture* capture) {
  validate(s);
  DispatchSweepResult result;
  std::vector<std::vector<at::Tensor>> bytes(s.variants.size());  // per variant, per observation
  std::vector<std::size_t> variant_of;                            // per observation
  const auto variants = static_cast<std::uint64_t>(s.variants.size());
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    const Point p = resolve(s, s.values[i]);
    const std::int64_t batch = s.axis == "batch" ? s.values[i].get<std::int64_t>() : s.batch;
    const std::string label = s.axis + "=" + format_axis_value(s.values[i]);
    if (auto why = s.op->unsupported(p, s.impl, device)) {
      result.skipped.push_back(fmt::format("{}: {}", label, *why));
      continue;
    }
    const std::uint64_t seed =
        sha256_prefix64(fmt::format("{}|{}|{}", s.seed, s.op->name(), p.label()));
    at::Generator shared_gen = make_generator(device, derive_seed(seed, 0xffff));
    const Shared shared = s.op->make_shared(p, device, shared_gen);
    std::vector<Item> items;
    for (std::int64_t b = 0; b < batch; ++b) {
      at::Generator gen = make_generator(device, derive_seed(seed, static_cast<std::uint64_t>(b)));
      items.push_back(s.op->make_item(p, shared, ItemSpec{b, -1}, device, gen));
    }
    for (std::size_t v = 0; v < s.variants.size(); ++v) {
      BatchRequest request;
      request.impl = s.impl;
      for (const auto& item : items) request.items.push_back(&item);
      request.layout = parse_layout(s.variants[v]);
      try {
        std::vector<Outputs> outputs;
        {
          const KernelCapture::Pending pending(capture, i * variants + v + 1);
          outputs = s.op->run(p, shared, request);
        }
        bytes[v].push_back(output_bytes(outputs.at(0)));
      } catch (const Unsupported& e) {
        result.skipped.push_back(fmt::format("{} {}: {}", label, s.variants[v], e.what()));
        continue;
      } catch (const c10::Error& e) {
        result.skipped.push_back(
            fmt::format("{} {}: error: {}", label, s.variants[v], e.what_without_backtrace()));
        continue;
      }
      SweepObservation o;
      o.point = static_cast<std::int64_t>(i);
      o.params = Json::object();
      o.params[s.axis] = s.values[i];
      o.variant = s.variants[v];
      o.properties = s.op->dispatch_properties(p, request);
      result.observations.push_back(std::move(o));
      variant_of.push_back(v);
    }
  }
  // One copy to the host per variant, then a digest per observation.
  std::vector<std::size_t> next(s.variants.size(), 0);
  std::vector<at::Tensor> host(s.variants.size());
  std::vector<std::vector<std::int64_t>> offsets(s.variants.size());
  for (std::size_t v = 0; v < s.variants.size(); ++v) {
    std::int64_t offset = 0;
    for (const auto& b : bytes[v]) {
      offsets[v].push_back(offset);
      offset += b.numel();
    }
    if (!bytes[v].empty()) host[v] = at::cat(bytes[v]).cpu();
  }
  for (std::size_t k = 0; k < result.observations.size(); ++k) {
    const std::size_t v = variant_of[k];
    const std::size_t j = next[v]++;
    const auto* data = host[v].const_data_ptr<std::uint8_t>() + offsets[v][j];
    result.observations[k].digest = sha256_hex(data, static_cast<std::size_t>(bytes[v][j].numel()));
  }
  if (capture) {
    auto by_tag = capture->take();
    for (auto& o : result.observations) {
      const std::size_t v = static_cast<std::size_t>(
          std::find(s.variants.begin(), s.variants.end(), o.variant) - s.variants.begin());
      const std::uint64_t tag = static_cast<std::uint64_t>(o.point) * variants + v + 1;
      auto it = by_tag.find(tag);
      if (it != by_tag.end()) o.kernels = std::move(it->second);
    }
  }
  return result;
}

}  // namespace samebits
