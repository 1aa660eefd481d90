// The launches behind invariant_linear_cuda, one per arithmetic: tensor cores for bf16 / f16,
// CUDA-core fmas for float32. Internal to kernels/linear; callers use invariant_linear.h.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/status.h"
#include "kernels/linear/invariant_linear.h"

namespace samebits::kernels {

// Which bf16 / f16 kernel computes a problem. Each gives the same bits (the order of
// invariant_linear_order.h); tests and benches name one to compare them.
enum class LinearPath {
  automatic,       // decode for rows <= 64, a prefill above, on sm_90a builds; else mma_sync
  mma_sync,        // linear_tensor_cores.cu
  decode,          // linear_warpgroups.cu: 64 rows of w per block, every row of x (rows <= 64)
  prefill,         // linear_warpgroups.cu: 128 rows of x by 256 rows of w per block
  prefill_narrow,  // the same by 128 rows of w (automatic where wide tiles would idle SMs)
};

// invariant_linear_cuda with the bf16 / f16 kernel named (float32 ignores `path`); decode or
// prefill where linear_warpgroups_take(p) is false: invalid_argument.
Status invariant_linear_cuda_path(const LinearProblem& p, LinearPath path, cudaStream_t stream);

// Whether the warpgroup kernels (wgmma + TMA, sm_90a) take p: an sm_90a build, bf16 / f16, K > 0.
bool linear_warpgroups_take(const LinearProblem& p);

// path automatic, decode or prefill; needs linear_warpgroups_take(p) and linear_cuda_layout_ok(p).
Status launch_linear_warpgroups(const LinearProblem& p, LinearPath path, cudaStream_t stream);

// bf16 / f16: mma.sync m16n8k16 over 128 x 128 block tiles (linear_tensor_cores.cu). Needs
// linear_cuda_layout_ok(p).
Status launch_linear_tensor_cores(const LinearProblem& p, cudaStream_t stream);

// float32: one fma chain per output over 64 x 64 block tiles (linear_fp32.cu).
Status launch_linear_fp32(const LinearProblem& p, cudaStream_t stream);

}  // namespace samebits::kernels
