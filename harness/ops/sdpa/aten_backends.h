// The SDPA implementations samebits runs (ATen's choice, or one backend forced) and the one call
// they all go through: the public entry point a model uses, with the backend flags set around it.
#pragma once

#include <ATen/ATen.h>
#include <ATen/SDPBackend.h>

#include <optional>
#include <string>
#include <vector>

namespace samebits {

struct SdpaImpl {
  std::string name;                     // "aten.auto", "aten.math", ...
  std::optional<at::SDPBackend> force;  // nullopt: ATen chooses
  bool cpu = true;
  bool cuda = true;
  std::string description;
  bool bundled = false;  // samebits' own attention (samebits_attention.h), not ATen's SDPA
};

const std::vector<SdpaImpl>& sdpa_impls();
// Throws std::invalid_argument naming the accepted implementations.
const SdpaImpl& find_sdpa_impl(const std::string& name);
std::string sdpa_backend_name(at::SDPBackend backend);

// One call of at::scaled_dot_product_attention: q [B, H, Lq, d], k and v [B, Hkv, Lk, d].
struct AttentionCall {
  at::Tensor q, k, v;
  std::optional<at::Tensor> mask;  // bool, true where a query may attend a key
  bool is_causal = false;          // ATen's is_causal: top-left aligned, so only with Lq == Lk
  bool enable_gqa = false;
};

// Runs the call with `impl`'s backend forced (every other SDPA backend disabled for the call, the
// global flags restored afterwards). Before running, asks at::_fused_sdp_choice which backend
// ATen would take; when the forced one cannot take these inputs, throws Unsupported with ATen's
// own reasons (the debug warnings its selector emits). Also throws Unsupported, rather than risk a
// CUDA fault that would end the run, when a fused CUDA backend (forced, or chosen by ATen) would
// get q, k or v at an address or stride that is not a multiple of 16 bytes.
at::Tensor attend(const AttentionCall& call, const SdpaImpl& impl);

}  // namespace samebits
