// Serving the decoder as an inference engine does: requests arriving at different steps,
// continuous batching, chunked prefill, greedy decode from the paged cache, pages reused; and
// scoring given sequences in one forward, as a trainer does.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "harness/ops/decoder/model.h"

namespace samebits::decoder {

struct Request {
  std::vector<std::int64_t> prompt;  // at least one token
  std::int64_t arrival = 0;          // the step it joins the running batch
};

// What one request got: its greedy tokens and their log-probabilities, and the log-probability of
// each prompt token after the first given the tokens before it (what a trainer's forward over the
// prompt computes).
struct Served {
  at::Tensor tokens;           // int64 [new_tokens]
  at::Tensor logprobs;         // float32 [new_tokens]
  at::Tensor prompt_logprobs;  // float32 [prompt length - 1]
};

struct Schedule {
  std::int64_t new_tokens = 8;  // generated per request
  // Prompt tokens a request feeds per step while prefilling: 0 the whole prompt at once, 1 one
  // token per step (the decode path), c chunks of c (chunked prefill).
  std::int64_t chunk = 0;
};

// What a step reads back per log-probability row: its greedy token and one log-probability.
struct RowPicks {
  std::vector<std::int64_t> greedy;  // the lowest token id among the row's maxima
  std::vector<float> logprob;        // lp[row][wanted[row]], or lp[row][greedy[row]] if wanted < 0
};

// Picks from log-probabilities lp [rows, V] (float32) where they are, so only these two values
// per row cross to the host; the values are lp's own bits, selected, never recomputed. wanted
// holds a token id per row (the next prompt token) or -1 (the row's greedy token). Throws
// std::runtime_error where a row of wanted -1 has no maximum (NaN).
RowPicks pick_rows(const at::Tensor& lp, const std::vector<std::int64_t>& wanted);

// Serves every request to completion, each step one forward over every running request's tokens.
// Greedy ties go to the lowest token id. Pages are taken from a free list as caches grow and
// given back when a request finishes, so a request's pages depend on who ran before it.
std::vector<Served> serve(const ModelConfig& c, const Weights& w, const OpMix& ops,
                          const std::vector<Request>& requests, const Schedule& schedule);

// A trainer's forward over whole sequences (prompt + completion), nothing generated: every
// sequence in one step from an empty cache, packed together. Per sequence, the float32
// log-probability of each token after the first given those before it ([length - 1], gathered
// from the forward's rows, never recomputed). With `embeddings` (per sequence [length, D]), the
// forward starts from these rows in place of embedding the tokens, and the result keeps
// autograd's graph back to them.
std::vector<at::Tensor> score(const ModelConfig& c, const Weights& w, const OpMix& ops,
                              const std::vector<std::vector<std::int64_t>>& sequences,
                              const std::vector<at::Tensor>& embeddings = {});

}  // namespace samebits::decoder
