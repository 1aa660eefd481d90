// Forces one SDPA backend per call through ATen's global flags and the public entry point, and
// turns a backend's refusal into Unsupported carrying the reasons ATen's own selector gives.
#include "harness/ops/sdpa/aten_backends.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <utility>

#include "harness/kernel_capture.h"
#include "harness/op.h"

namespace samebits {
namespace {

// Enables only `only` among ATen's SDPA backends for its lifetime (nullopt: leaves the flags as
// they are) and restores every flag afterwards. The flags are process-wide and cases may run on
// several threads (--jobs): a call that forces a backend holds the flags alone for the guard's
// lifetime, calls that leave ATen its choice share them, so no call sees another's flags.
class OnlyBackendGuard {
 public:
  explicit OnlyBackendGuard(std::optional<at::SDPBackend> only) {
    if (!only) {
      shared_ = std::shared_lock<std::shared_mutex>(flags_mutex());  // reads them, changes none
      return;
    }
    exclusive_ = std::unique_lock<std::shared_mutex>(flags_mutex());
    auto& ctx = at::globalContext();
    saved_ = {ctx.userEnabledFlashSDP(), ctx.userEnabledMemEfficientSDP(), ctx.userEnabledMathSDP(),
              ctx.userEnabledCuDNNSDP(), ctx.userEnabledOverrideableSDP()};
    set({*only == at::SDPBackend::flash_attention, *only == at::SDPBackend::efficient_attention,
         *only == at::SDPBackend::math, *only == at::SDPBackend::cudnn_attention,
         *only == at::SDPBackend::overrideable});
  }
  ~OnlyBackendGuard() {
    if (exclusive_.owns_lock()) set(saved_);
  }
  OnlyBackendGuard(const OnlyBackendGuard&) = delete;
  OnlyBackendGuard& operator=(const OnlyBackendGuard&) = delete;

 private:
  using Flags = std::array<bool, 5>;  // flash, efficient, math, cudnn, overrideable
  static std::shared_mutex& flags_mutex() {
    static std::shared_mutex m;
    return m;
  }
  static void set(const Flags& f) {
    auto& ctx = at::globalContext();
    ctx.setSDPUseFlash(f[0]);
    ctx.setSDPUseMemEfficient(f[1]);
    ctx.setSDPUseMath(f[2]);
    ctx.setSDPUseCuDNN(f[3]);
    ctx.setSDPUseOverrideable(f[4]);
  }
  std::unique_lock<std::shared_mutex> exclusive_;  // held while a forced call runs
  std::shared_lock<std::shared_mutex> shared_;     // held while ATen's own choice runs
  Flags saved_{};
};

// Keeps the warnings ATen emits while it is installed: the selector explains a refusal only
// through TORCH_WARN ("Flash attention kernel not used because:", then one warning per reason).
class WarningCollector final : public c10::WarningHandler {
 public:
  void process(const c10::Warning& warning) override { messages.push_back(warning.msg()); }
  std::vector<std::string> messages;
};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// How ATen's selector heads the reasons for each backend (sdp_utils.cpp, sdp_utils_cpp.cpp).
std::string reason_header(at::SDPBackend backend) {
  switch (backend) {
    case at::SDPBackend::flash_attention: return "Flash attention";
    case at::SDPBackend::efficient_attention: return "Memory efficient";
    case at::SDPBackend::cudnn_attention: return "CuDNN attention";
    default: return sdpa_backend_name(backend);
  }
}

// The reasons listed under the forced backend's header, else every warning, else ATen's error.
std::string refusal_reasons(const std::vector<std::string>& warnings, at::SDPBackend backend,
                            const std::string& error) {
  std::vector<std::string> mine;
  bool in_section = false;
  for (const auto& w : warnings) {
    if (ends_with(one_line(w), "not used because:")) {
      in_section = starts_with(w, reason_header(backend));
      continue;
    }
    if (in_section) mine.push_back(one_line(w));
  }
  if (mine.empty()) {
    for (const auto& w : warnings) mine.push_back(one_line(w));
  }
  if (mine.empty()) mine.push_back(one_line(error));
  return fmt::format("{}", fmt::join(mine, "; "));
}

// Throws Unsupported unless ATen's selector, with only `forced` enabled, picks `forced`.
void require_choice(const AttentionCall& c, at::SDPBackend forced) {
  WarningCollector collector;
  std::int64_t choice = -1;
  {
    const c10::WarningUtils::WarningHandlerGuard capture(&collector);
    try {
      choice = at::_fused_sdp_choice(c.q, c.k, c.v, c.mask, 0.0, c.is_causal, std::nullopt,
                                     c.enable_gqa);
    } catch (const c10::Error& e) {
      throw Unsupported(
          fmt::format("ATen's {} backend refuses these inputs: {}", sdpa_backend_name(forced),
                      refusal_reasons(collector.messages, forced, e.what_without_backtrace())));
    }
  }
  if (choice != static_cast<std::int64_t>(forced)) {
    throw Unsupported(fmt::format("with only the {} backend enabled, ATen's selector chose {}",
                                  sdpa_backend_name(forced),
                                  sdpa_backend_name(static_cast<at::SDPBackend>(choice))));
  }
}

// The fused CUDA kernels load 16-byte vectors. ATen 2.11 does not check that q, k and v start on
// a 16-byte boundary before it launches them (pytorch/pytorch#183484: the memory-efficient kernel
// faults on a misaligned address), and a fault ends every later case in the process. So samebits
// refuses such inputs itself: any misaligned pointer for the three fused backends, and for flash
// and cuDNN also strides that are not whole 16-byte vectors (memory-efficient picks its unaligned
// kernel for those; flash copies a head_dim that is not a multiple of 8 into a fresh tensor).
void refuse_misaligned(at::SDPBackend backend, const AttentionCall& c) {
  if (!c.q.is_cuda()) return;
  const bool efficient = backend == at::SDPBackend::efficient_attention;
  if (!efficient && backend != at::SDPBackend::flash_attention &&
      backend != at::SDPBackend::cudnn_attention) {
    return;
  }
  const std::int64_t row_bytes = c.q.size(-1) * c.q.element_size();
  if (backend == at::SDPBackend::flash_attention && row_bytes % 16 != 0) return;
  const std::array<std::pair<const char*, const at::Tensor*>, 3> inputs = {
      {{"q", &c.q}, {"k", &c.k}, {"v", &c.v}}};
  for (const auto& [name, t] : inputs) {
    const auto address = reinterpret_cast<std::uintptr_t>(t->const_data_ptr());
    if (address % 16 != 0) {
      throw Unsupported(fmt::format(
          "{} starts {} bytes past a 16-byte boundary (storage offset {}); ATen 2.11 launches the "
          "{} kernel without checking this and it can fault on a misaligned address "
          "(pytorch/pytorch#183484), so samebits does not run it",
          name, address % 16, t->storage_offset(), sdpa_backend_name(backend)));
    }
    for (std::int64_t d = 0; d + 1 < t->dim() && !efficient; ++d) {
      if (t->size(d) > 1 && t->stride(d) * t->element_size() % 16 != 0) {
        throw Unsupported(fmt::format(
            "{} has stride {} (elements) in dim {}, not a whole number of 16-byte vectors; ATen "
            "does not check this for the {} kernel, whose vector loads could fault, so samebits "
            "does not run it",
            name, t->stride(d), d, sdpa_backend_name(backend)));
      }
    }
  }
}

}  // namespace

const std::vector<SdpaImpl>& sdpa_impls() {
  using B = at::SDPBackend;
  static const std::vector<SdpaImpl> impls = {
      {"aten.auto", std::nullopt, true, true,
       "at::scaled_dot_product_attention with every backend enabled: ATen chooses (CPU: its "
       "flash kernel, else math; CUDA: cuDNN first on SM90 with cuDNN > 9.15, then flash, "
       "memory-efficient, math)"},
      {"aten.math", B::math, true, true,
       "the composite math backend forced: matmul, _safe_softmax, matmul, with float16 and "
       "bfloat16 upcast to float32"},
      {"aten.flash", B::flash_attention, true, true,
       "the flash backend forced. CUDA: FlashAttention-2 (float16/bfloat16, no explicit mask, "
       "split-KV by a batch-dependent heuristic). CPU: ATen's own blocked flash kernel "
       "(_scaled_dot_product_flash_attention_for_cpu; takes float32 and masks)"},
      {"aten.efficient", B::efficient_attention, false, true,
       "the CUTLASS memory-efficient backend forced (CUDA only; storage offsets must be aligned)"},
      {"aten.cudnn", B::cudnn_attention, false, true,
       "the cuDNN fused attention backend forced (CUDA only; float16/bfloat16)"},
      {"samebits", std::nullopt, true, true,
       "torch.ops.samebits.attention (dense batches) and attention_varlen (padded or packed "
       "batches reach it as packed sequences with offsets: it takes lengths, not masks): "
       "float16/bfloat16, head dims 64, 128 and 256, splits and tiles at absolute key positions "
       "(kernels/attention/invariant_attention_order.h)",
       true},
  };
  return impls;
}

const SdpaImpl& find_sdpa_impl(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& impl : sdpa_impls()) {
    if (impl.name == name) return impl;
    names.push_back(impl.name);
  }
  throw std::invalid_argument(fmt::format("unknown sdpa implementation \"{}\"; accepted: {}", name,
                                          fmt::join(names, ", ")));
}

std::string sdpa_backend_name(at::SDPBackend backend) {
  switch (backend) {
    case at::SDPBackend::error: return "none (error)";
    case at::SDPBackend::math: return "math";
    case at::SDPBackend::flash_attention: return "flash";
    case at::SDPBackend::efficient_attention: return "memory-efficient";
    case at::SDPBackend::cudnn_attention: return "cuDNN";
    case at::SDPBackend::overrideable: return "overrideable";
  }
  return fmt::format("backend {}", static_cast<int>(backend));
}

at::Tensor attend(const AttentionCall& c, const SdpaImpl& impl) {
  if (impl.bundled)
    throw std::logic_error(
        "attend() is ATen's SDPA; samebits goes through sdpa/samebits_attention.h");
  const OnlyBackendGuard only(impl.force);
  at::SDPBackend backend = at::SDPBackend::math;
  if (impl.force) {
    require_choice(c, *impl.force);
    backend = *impl.force;
  } else if (c.q.is_cuda()) {
    backend = static_cast<at::SDPBackend>(
        at::_fused_sdp_choice(c.q, c.k, c.v, c.mask, 0.0, c.is_causal, std::nullopt, c.enable_gqa));
  }
  refuse_misaligned(backend, c);
  try {
    const ComputeScope under_test;
    return at::scaled_dot_product_attention(c.q, c.k, c.v, c.mask, 0.0, c.is_causal, std::nullopt,
                                            c.enable_gqa);
  } catch (const c10::Error& e) {
    // The memory-efficient kernel checks stride alignment only at launch ("query is not
    // correctly aligned (strideM)"): a refusal of the inputs, raised before any work is done.
    const std::string what = e.what_without_backtrace();
    if (what.find("not correctly aligned") != std::string::npos) {
      throw Unsupported(fmt::format("ATen's {} kernel refuses these inputs at launch: {}",
                                    sdpa_backend_name(backend), what.substr(0, what.find('\n'))));
    }
    throw;
  }
}

}  // namespace samebits
