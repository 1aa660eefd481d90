// The launches behind invariant_linear_cuda, one per arithmetic: tensor cores for bf16 / f16,
// CUDA-core fmas for float32. Internal to kernels/linear; callers use invariant_linear.h.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/status.h"
#include "kernels/linear/invariant_linear.h"

namespace samebits::kernels {

// bf16 / f16: mma.sync m16n8k16 over 128 x 128 block tiles (linear_tensor_cores.cu). Needs
// linear_cuda_layout_ok(p).
Status launch_linear_tensor_cores(const LinearProblem& p, cudaStream_t stream);

// float32: one fma chain per output over 64 x 64 block tiles (linear_fp32.cu).
Status launch_linear_fp32(const LinearProblem& p, cudaStream_t stream);

}  // namespace samebits::kernels
