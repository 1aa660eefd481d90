// Shared-memory barriers (mbarrier) between a block's copying warps and its computing ones, the
// bulk tensor copies (TMA) that complete on them, and register reallocation (setmaxnreg), sm_90a.
#pragma once

#include <cstdint>

#include "kernels/common/warpgroup_instructions.cuh"

namespace samebits::kernels::warpgroup {

#if defined(SAMEBITS_WGMMA_DEVICE)
// A barrier in shared memory that completes a phase when `count` arrivals have been made.
__device__ __forceinline__ void barrier_init(std::uint32_t barrier, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(count) : "memory");
}
// A ring of `stages` stages, by one thread: stage s's `full` barrier (at full + 8 s) completes on
// `fills` arrivals (its copies), its `empty` one (at empty + 8 s) on `reads` (the warps reading
// it).
__device__ __forceinline__ void init_stages(std::uint32_t full, std::uint32_t empty, int stages,
                                            unsigned fills, unsigned reads) {
  for (int s = 0; s < stages; ++s) {
    barrier_init(full + s * 8, fills);
    barrier_init(empty + s * 8, reads);
  }
}
// One arrival, releasing the thread's earlier memory operations to whoever waits on the phase.
__device__ __forceinline__ void barrier_arrive(std::uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(barrier) : "memory");
}
// An arrival made when every cp.async copy the thread has issued so far has landed (counted
// among the barrier's `count` arrivals).
__device__ __forceinline__ void barrier_arrive_on_copies(std::uint32_t barrier) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(barrier) : "memory");
}
// Waits until the phase of parity `parity` has completed (phases alternate 0, 1, 0, ...).
__device__ __forceinline__ void barrier_wait(std::uint32_t barrier, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n}\n" ::"r"(barrier),
      "r"(parity)
      : "memory");
}
// The thread's arrival that also says `bytes` more are to land through bulk copies before the
// phase completes.
__device__ __forceinline__ void barrier_arrive_expecting(std::uint32_t barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes)
               : "memory");
}
// The box of the 2-D tensor map `map` (a __grid_constant__ kernel parameter) at element (x, y)
// (x the inner, contiguous coordinate) into shared memory at `dst`; its bytes count towards
// `barrier`'s phase. Parts of the box outside the tensor land as zeros.
__device__ __forceinline__ void bulk_copy_2d(std::uint32_t dst, const void* map, int x, int y,
                                             std::uint32_t barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(barrier)
      : "memory");
}
// The warpgroup gives registers back to the block's pool, or takes them (every warp of the
// warpgroup executes it; a warpgroup's count is its own until the next one).
template <unsigned N>
__device__ __forceinline__ void registers_release() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <unsigned N>
__device__ __forceinline__ void registers_take() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
#endif  // SAMEBITS_WGMMA_DEVICE

}  // namespace samebits::kernels::warpgroup
