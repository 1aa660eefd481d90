// The decoder's serving loop (engine.h): per step, each arrived and unfinished request adds its
// next prompt chunk or its last token; log-probabilities are read back to choose the next tokens.
#include "harness/ops/decoder/engine.h"

#include <algorithm>
#include <deque>

namespace samebits::decoder {
namespace {

struct Running {
  std::size_t index = 0;    // into the requests
  std::int64_t fed = 0;     // prompt tokens already in the cache
  std::int64_t cached = 0;  // keys in the cache
  std::vector<std::int32_t> pages;
  std::vector<std::int64_t> tokens;
  std::vector<float> logprobs, prompt_logprobs;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::vector<Served> serve(const ModelConfig& c, const Weights& w, const OpMix& ops,
                          const std::vector<Request>& requests, const Schedule& schedule) {
  const auto device = w.embed.device();
  std::int64_t total_pages = 0;
  for (const auto& r : requests)
    total_pages +=
        ceil_div(static_cast<std::int64_t>(r.prompt.size()) + schedule.new_tokens, c.page_size);
  KvCache cache = make_cache(c, total_pages, w.embed.scalar_type(), device);
  std::deque<std::int32_t> free_pages;
  for (std::int64_t p = 0; p < total_pages; ++p) free_pages.push_back(static_cast<std::int32_t>(p));

  std::vector<Running> state(requests.size());
  std::vector<bool> done(requests.size(), false);
  std::size_t finished = 0;
  for (std::int64_t step_no = 0; finished < requests.size(); ++step_no) {
    StepBatch step;
    step.q_offsets.push_back(0);
    std::vector<std::size_t> running;
    std::vector<std::int64_t> first_row;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (done[i] || requests[i].arrival > step_no) continue;
      Running& r = state[i];
      r.index = i;
      const auto& prompt = requests[i].prompt;
      const std::int64_t length = static_cast<std::int64_t>(prompt.size());
      std::vector<std::int64_t> feed;
      if (r.fed < length) {
        const std::int64_t n =
            schedule.chunk == 0 ? length - r.fed : std::min(schedule.chunk, length - r.fed);
        feed.assign(prompt.begin() + r.fed, prompt.begin() + r.fed + n);
      } else {
        feed.push_back(r.tokens.back());
      }
      const std::int64_t n = static_cast<std::int64_t>(feed.size());
      while (static_cast<std::int64_t>(r.pages.size()) < ceil_div(r.cached + n, c.page_size)) {
        r.pages.push_back(free_pages.front());
        free_pages.pop_front();
      }
      first_row.push_back(static_cast<std::int64_t>(step.tokens.size()));
      for (std::int64_t t = 0; t < n; ++t)
        step.logit_rows.push_back(static_cast<std::int64_t>(step.tokens.size()) + t);
      step.tokens.insert(step.tokens.end(), feed.begin(), feed.end());
      step.q_offsets.push_back(static_cast<std::int64_t>(step.tokens.size()));
      step.cache_lengths.push_back(r.cached);
      step.pages.push_back(r.pages);
      running.push_back(i);
    }
    if (running.empty()) continue;                          // nobody has arrived yet
    const at::Tensor lp = forward(c, w, ops, cache, step);  // [tokens, V]
    // The greedy choice per row, lowest id among equal maxima, and its log-probability.
    const at::Tensor best = lp.amax(-1, /*keepdim=*/true);
    const at::Tensor ids = at::arange(lp.size(1), lp.options().dtype(at::kLong));
    const at::Tensor choice = at::where(lp == best, ids.unsqueeze(0), lp.size(1)).amin(-1).cpu();
    const at::Tensor lp_host = lp.cpu();
    const auto* chosen = choice.data_ptr<std::int64_t>();
    const auto lpa = lp_host.accessor<float, 2>();
    for (std::size_t k = 0; k < running.size(); ++k) {
      const std::size_t i = running[k];
      Running& r = state[i];
      const auto& prompt = requests[i].prompt;
      const std::int64_t length = static_cast<std::int64_t>(prompt.size());
      const std::int64_t row0 = first_row[k];
      const std::int64_t n = step.q_offsets[k + 1] - step.q_offsets[k];
      for (std::int64_t t = 0; t < n; ++t) {
        const std::int64_t row = row0 + t;
        const std::int64_t position = r.cached + t;  // of the token fed at this row
        if (position + 1 < length) {
          r.prompt_logprobs.push_back(lpa[row][prompt[static_cast<std::size_t>(position + 1)]]);
        } else {
          r.tokens.push_back(chosen[row]);
          r.logprobs.push_back(lpa[row][chosen[row]]);
        }
      }
      r.cached += n;
      r.fed = std::min(length, r.fed + n);
      if (static_cast<std::int64_t>(r.tokens.size()) >= schedule.new_tokens) {
        done[i] = true;
        ++finished;
        for (const auto p : r.pages) free_pages.push_front(p);
      }
    }
  }
  std::vector<Served> out;
  for (auto& r : state) {
    const auto n = static_cast<std::int64_t>(r.tokens.size());
    out.push_back({at::tensor(r.tokens, at::kLong).view({n}),
                   at::tensor(r.logprobs, at::kFloat).view({n}),
                   at::tensor(r.prompt_logprobs, at::kFloat)
                       .view({static_cast<std::int64_t>(r.prompt_logprobs.size())})});
  }
  return out;
}

}  // namespace samebits::decoder
