// Synthetic kernel captures of ATen's float32 sums, launched the way Reduce.cuh picks kernels: the
// recorded input of the dispatch-map tests (what the GPU sweep runner would hand over).
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "dispatch/classify.h"

namespace samebits {
namespace sum_sweeps {

// What CUPTI would record for [64, N].sum(0) and [64, D].sum(-1).
//
// get_output_vec_size: the largest of 4, 2, 1 dividing the storage offset, the output size N and
// the row stride; the kernel is reduce_kernel<512 / vec, vec>. set_block_dimension(dim0 = N / vec,
// dim1 = 64 rows, max = 512 / vec) gives the block. Per-column summation order changes only where
// the 64 rows are split across warps (values per thread >= 16 * block.y, i.e. the 32x4 block).
// Row sums ([64, D].sum(-1)) always launch reduce_kernel<512, 1>; above D = 128 they load rows as
// float4, so each row's start modulo 16 bytes (storage offset + r * row stride) sets the order.

inline std::int64_t pow2_floor(std::int64_t v) {
  std::int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

inline std::array<std::uint32_t, 3> block_for(std::int64_t dim0, std::int64_t dim1,
                                              std::int64_t max) {
  std::int64_t width = std::min(pow2_floor(std::min(dim0, max)), std::int64_t{32});
  const std::int64_t height = std::min(pow2_floor(std::min(dim1, max)), max / width);
  width = std::min(pow2_floor(std::min(dim0, max)), max / height);
  return {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), 1};
}

inline std::string reduce_kernel_name(int vec) {
  const std::string op =
      "at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
      "at::native::sum_functor<float, float, "
      "float>::operator()(at::TensorIterator&)::{lambda(float, "
      "float)#1}>, unsigned int, float, 4, 4>";
  return "void at::native::reduce_kernel<" + std::to_string(512 / vec) + ", " +
         std::to_string(vec) + ", " + op + " >(" + op + ")";
}

inline KernelLaunch reduce_launch(int vec, std::array<std::uint32_t, 3> block,
                                  std::int64_t outputs) {
  KernelLaunch k;
  k.name = reduce_kernel_name(vec);
  k.block = block;
  k.grid = {static_cast<std::uint32_t>((outputs / vec + block[0] - 1) / block[0]), 1, 1};
  k.registers = 32;
  k.count = 1;
  k.duration_ns = 4000;
  return k;
}

// A layout of [64, width] as the op sees it: offset and row stride of the buffer it reduces.
struct Placement {
  std::int64_t width = 0;  // columns the kernel reduces (padded width for padded layouts)
  std::int64_t row_stride = 0;
  std::int64_t offset = 0;
};

inline SweepObservation observe(std::int64_t point, const std::string& param, std::int64_t value,
                                const std::string& variant, std::int64_t logical,
                                const Placement& at) {
  SweepObservation o;
  o.point = point;
  o.params = Json{{param, value}};
  o.variant = variant;
  o.properties = {{param == "D" ? "D" : "N", logical},
                  {"row_stride", at.row_stride},
                  {"storage_offset", at.offset}};
  return o;
}

// [64, N].sum(0) over `at`, keeping the first `logical` columns.
inline SweepObservation column_sum(std::int64_t point, const std::string& param, std::int64_t value,
                                   const std::string& variant, std::int64_t logical,
                                   const Placement& at) {
  SweepObservation o = observe(point, param, value, variant, logical, at);
  int vec = 4;
  while (at.offset % vec || at.width % vec || at.row_stride % vec) vec /= 2;
  const auto block = block_for(at.width / vec, 64, 512 / vec);
  o.kernels = {reduce_launch(vec, block, at.width)};
  const bool rows_split = block[0] == 32 && block[1] == 4;
  o.digest = "sum0 N=" + std::to_string(logical) + (rows_split ? " rows split" : " rows whole");
  return o;
}

// [64, D].sum(-1) over `at` (padded columns hold zeros, which change no partial sum).
inline SweepObservation row_sum(std::int64_t point, const std::string& variant, std::int64_t d,
                                const Placement& at) {
  SweepObservation o = observe(point, "D", d, variant, d, at);
  const bool float4_loads = at.width > 128;
  o.kernels = {reduce_launch(1, block_for(float4_loads ? at.width / 4 : at.width, 64, 512), 64)};
  o.digest = "sum1 D=" + std::to_string(d);
  if (float4_loads) {
    o.digest += " row starts";
    for (std::int64_t r = 0; r < 64; ++r)
      o.digest += std::to_string((at.offset + r * at.row_stride) % 4);
  }
  return o;
}

inline std::int64_t round_up(std::int64_t n, std::int64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// The three layouts of the reference finding, over N = first..last.
inline std::vector<SweepObservation> column_sums(std::int64_t first, std::int64_t last,
                                                 const std::vector<std::string>& variants) {
  std::vector<SweepObservation> out;
  for (std::int64_t n = first; n <= last; ++n) {
    for (const auto& v : variants) {
      Placement at{n, n, 0};
      if (v == "strided:1") at.row_stride = n + 1;
      if (v == "offset:2") at.offset = 2;
      if (v == "padded:4") at.width = at.row_stride = round_up(n, 4);
      out.push_back(column_sum(n - first, "N", n, v, n, at));
    }
  }
  return out;
}

inline std::vector<SweepObservation> reference_finding() {
  return column_sums(128, 148, {"contiguous", "strided:1", "padded:4"});
}
inline std::vector<SweepObservation> across_warp_split() {
  return column_sums(120, 135, {"contiguous", "strided:1"});
}
// N = 128 fixed; the axis is the row stride of a strided view, against a contiguous copy.
inline std::vector<SweepObservation> row_stride_axis() {
  std::vector<SweepObservation> out;
  for (std::int64_t s = 128; s <= 143; ++s) {
    out.push_back(column_sum(s - 128, "row_stride", s, "contiguous", 128, {128, 128, 0}));
    out.push_back(column_sum(s - 128, "row_stride", s, "strided", 128, {128, s, 0}));
  }
  return out;
}
inline std::vector<SweepObservation> row_sums() {
  std::vector<SweepObservation> out;
  for (std::int64_t d = 120; d <= 135; ++d) {
    out.push_back(row_sum(d - 120, "contiguous", d, {d, d, 0}));
    out.push_back(row_sum(d - 120, "offset:1", d, {d, d, 1}));
    out.push_back(row_sum(d - 120, "padded:4", d, {round_up(d, 4), round_up(d, 4), 0}));
  }
  return out;
}
// The same bits with kernel capture off (the CPU path of the sweep runner).
inline std::vector<SweepObservation> without_kernels(std::vector<SweepObservation> observations) {
  for (auto& o : observations) o.kernels.clear();
  return observations;
}

}  // namespace sum_sweeps
}  // namespace samebits
