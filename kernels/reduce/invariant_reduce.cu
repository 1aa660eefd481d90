// The CUDA entry points of the invariant reduction: check the problem, choose among the kernels
// (chunk_sums.cu, row_sums.cu, wide_rows.cu, medium_rows.cu, short_rows.cu, column_sums.cu,
// short_columns.cu, long_columns.cu), switch on dtype once.
#include <algorithm>

#include "kernels/reduce/invariant_reduce.h"
#include "kernels/reduce/reduce_device.cuh"

namespace samebits::kernels {
namespace {

using namespace reduce_device;

// Rows of c chunks are finished one warp per row when that needs no second launch (c <= 4) and
// there are enough rows to fill the GPU with warps; else chunk sums go through the workspace.
constexpr std::int64_t kRowsForRowKernel = 1024;
bool one_warp_per_row(std::int64_t c, std::int64_t reductions) {
  return c == 1 || (c <= kRowChunks && reductions >= kRowsForRowKernel);
}

// Fewer rows of more than one step (1024 elements) and at most four chunks: a block per row, a
// thread per lane (wide_rows.cu); one warp per row would leave most of the GPU idle, and chunk
// sums through the workspace cost a second launch.
bool one_block_per_row(std::int64_t max_n, std::int64_t reductions) {
  return max_n > kStepSpan && chunks(max_n) <= kRowChunks && reductions < kRowsForRowKernel;
}

// Floats of workspace for `reductions` rows of up to n elements: the first pass's chunk sums and,
// beside them, the next pass's (passes alternate between the two halves).
std::size_t workspace_floats(std::int64_t reductions, std::int64_t n) {
  const std::int64_t c = chunks(n);
  if (one_warp_per_row(c, reductions) || one_block_per_row(n, reductions)) return 0;
  return 2 * static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c);
}

// Reductions side by side in memory: read a row's adjacent reductions together (up to 128 rows in
// registers, column_sums.cu; up to 1024 a thread per lane slot, short_columns.cu; longer ones by
// chunks, long_columns.cu).
bool column_layout(const ReduceProblem& p) {
  return p.inner > 1 && p.stride_inner == 1;
}

// Floats of workspace for long columns: the chunk remnants, then (more than one chunk) the passes'
// two halves.
std::size_t long_column_floats(std::int64_t reductions, std::int64_t n) {
  if (n <= kShortColumnMax) return 0;
  const std::int64_t c = chunks(n);
  return long_column_remnant_floats(reductions, n) +
         (c > 1 ? 2 * static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c) : 0);
}

// Reductions side by side in memory as the outer index (inner 1, stride_outer 1: a transposed
// matrix summed along its rows) are the same reductions as inner ones: r = o either way, so the
// column kernels read them, a row at a time.
ReduceProblem adjacent_as_inner(ReduceProblem p) {
  if (p.inner != 1 || p.outer <= 1 || p.stride_outer != 1) return p;
  p.inner = p.outer;
  p.stride_inner = 1;
  p.out_stride_inner = p.out_stride_outer;
  p.outer = 1;
  p.stride_outer = 0;
  p.out_stride_outer = 0;
  return p;
}

bool valid(const ReduceProblem& p) {
  return p.x && p.out && p.outer >= 0 && p.length >= 0 && p.inner >= 0;
}

bool valid(const VarlenReduceProblem& p) {
  return p.values && p.offsets && p.out && p.rows >= 0 && p.max_length >= 0;
}

// A checked problem, whatever its element type: `reductions` rows described by `src`, none longer
// than max_length, into `sink`; when `columns`, `outer` blocks of src.inner adjacent reductions.
struct Reductions {
  const void* x;
  Source src;
  Sink sink;
  std::int64_t reductions, max_length;
  bool columns;
  std::int64_t outer;
};

// Rows of c chunk sums in halves[0], summed pass by pass (each pass's rows are the previous pass's
// chunk sums, alternating between the halves) until a pass's rows can be finished one warp per row.
Status sum_chunk_sums(float* const (&halves)[2], std::int64_t reductions, std::int64_t c, Sink sink,
                      cudaStream_t stream) {
  for (int pass = 0;; ++pass) {
    // Dense rows of c chunk sums each; zeros past a short row's chunks change nothing.
    const Source partial{1, c, 0, 1, nullptr, c};
    const std::int64_t next = chunks(c);
    float* in = halves[pass % 2];
    if (one_warp_per_row(next, reductions))
      return row_sums<float>(in, partial, reductions, next, c, sink, stream);
    const Status status =
        chunk_sums<float>(in, partial, reductions, next, halves[(pass + 1) % 2], stream);
    if (status != Status::ok) return status;
    c = next;
  }
}

// Short rows by warps; few rows of more than one step by blocks; other rows up to 1024 elements
// (16-bit: up to one chunk) a warp per few rows; rows of up to four chunks by a warp each when
// they are many; otherwise chunk sums, then sum_chunk_sums.
template <typename T>
Status run_rows(const T* x, Source src, std::int64_t max_n, std::int64_t reductions, Sink sink,
                float* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (max_n <= kShortMax) return short_rows<T>(x, src, reductions, sink, stream);
  if (one_block_per_row(max_n, reductions))
    return wide_rows<T>(x, src, reductions, max_n, sink, stream);
  if (max_n <= kMediumRowMax<T>) return medium_rows<T>(x, src, reductions, max_n, sink, stream);
  const std::int64_t c = chunks(max_n);
  if (one_warp_per_row(c, reductions))
    return row_sums<T>(x, src, reductions, c, max_n, sink, stream);
  if (workspace_bytes < workspace_floats(reductions, max_n) * sizeof(float))
    return Status::workspace_too_small;
  float* const halves[2] = {
      workspace, workspace + static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c)};
  const Status first = chunk_sums<T>(x, src, reductions, c, halves[0], stream);
  if (first != Status::ok) return first;
  return sum_chunk_sums(halves, reductions, c, sink, stream);
}

// Columns: up to 128 rows in registers, up to 1024 a thread per lane slot; longer ones by chunk
// remnants, then (several chunks) sum_chunk_sums.
template <typename T>
Status run_columns(const T* x, Source src, std::int64_t outer, std::int64_t reductions, Sink sink,
                   float* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (src.n <= kShortMax) return column_sums<T>(x, src, outer, sink, stream);
  if (src.n <= kShortColumnMax) return short_columns<T>(x, src, outer, sink, stream);
  if (workspace_bytes < long_column_floats(reductions, src.n) * sizeof(float))
    return Status::workspace_too_small;
  const std::int64_t c = chunks(src.n);
  float* remnants = workspace;
  float* partial = workspace + long_column_remnant_floats(reductions, src.n);
  float* const halves[2] = {
      partial, partial + static_cast<std::size_t>(reductions) * static_cast<std::size_t>(c)};
  const Status first = long_columns<T>(x, src, outer, remnants, sink, halves[0], stream);
  if (first != Status::ok || c == 1) return first;
  return sum_chunk_sums(halves, reductions, c, sink, stream);
}

template <typename T>
Status run(const Reductions& r, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (r.reductions == 0) return Status::ok;
  const T* x = static_cast<const T*>(r.x);
  if (r.columns)
    return run_columns<T>(x, r.src, r.outer, r.reductions, r.sink, static_cast<float*>(workspace),
                          workspace_bytes, stream);
  return run_rows<T>(x, r.src, r.max_length, r.reductions, r.sink, static_cast<float*>(workspace),
                     workspace_bytes, stream);
}

Status run(DType dtype, const Reductions& r, void* workspace, std::size_t workspace_bytes,
           cudaStream_t stream) {
  switch (dtype) {
    case DType::f32: return run<float>(r, workspace, workspace_bytes, stream);
    case DType::f16: return run<__half>(r, workspace, workspace_bytes, stream);
    case DType::bf16: return run<__nv_bfloat16>(r, workspace, workspace_bytes, stream);
  }
  return Status::unsupported_dtype;
}

}  // namespace

std::size_t invariant_reduce_workspace_bytes(const ReduceProblem& problem) {
  const ReduceProblem p = adjacent_as_inner(problem);
  if (column_layout(p)) return long_column_floats(p.outer * p.inner, p.length) * sizeof(float);
  return workspace_floats(p.outer * p.inner, p.length) * sizeof(float);
}

std::size_t invariant_reduce_varlen_workspace_bytes(const VarlenReduceProblem& p) {
  return workspace_floats(p.rows, p.max_length) * sizeof(float);
}

Status invariant_reduce_cuda(const ReduceProblem& problem, void* workspace,
                             std::size_t workspace_bytes, cudaStream_t stream) {
  if (!valid(problem)) return Status::invalid_argument;
  const ReduceProblem p = adjacent_as_inner(problem);
  const std::int64_t inner = std::max<std::int64_t>(p.inner, 1);
  const Source src{inner, p.stride_outer, p.stride_inner, p.stride_length, nullptr, p.length};
  const Sink sink{p.out, inner, p.out_stride_outer, p.out_stride_inner, p.mean, nullptr, p.length};
  return run(p.dtype, {p.x, src, sink, p.outer * p.inner, p.length, column_layout(p), p.outer},
             workspace, workspace_bytes, stream);
}

Status invariant_reduce_varlen_cuda(const VarlenReduceProblem& p, void* workspace,
                                    std::size_t workspace_bytes, cudaStream_t stream) {
  if (!valid(p)) return Status::invalid_argument;
  const Source src{1, 0, 0, 1, p.offsets, 0};
  const Sink sink{p.out, 1, 1, 0, p.mean, p.offsets, 0};
  return run(p.dtype, {p.values, src, sink, p.rows, p.max_length, false, 0}, workspace,
             workspace_bytes, stream);
}

}  // namespace samebits::kernels
