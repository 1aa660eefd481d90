// The benchmark families samebits_bench runs, one function per kernel family, each returning its
// rows (bench/timing.h) measured against ATen in the same process on the same inputs.
#pragma once

#include <vector>

#include "bench/timing.h"

namespace samebits::bench {

std::vector<Row> reduce_rows(int reps, bool full);     // the [R, C] grid (full: all of it)
std::vector<Row> topk_rows(int reps);                  // batched variable-length top-k, K = 2048
std::vector<Row> topk_small_rows(int reps);            // K in {16, 32} over [rows, N]
std::vector<Row> topk_grid_rows(int reps, bool full);  // topk_varlen, B x L x K, vs at::topk
std::vector<Row> indexer_rows(int reps);               // the indexer pipeline, B in {4, 8, 16, 31}
std::vector<Row> softmax_rows(int reps, bool full);    // [rows, V], vs at::softmax / log_softmax
std::vector<Row> norm_rows(int reps, bool full);       // [rows, D], vs at::rms_norm (and add first)
std::vector<Row> linear_rows(int reps, bool full);     // M x (K, N) bf16, vs at::linear (cuBLAS)
// The decoder (small, bf16) served per op mix vs all-ATen; the check names changed completions.
std::vector<Row> decoder_rows(int reps);

}  // namespace samebits::bench
