// The decoder's serving loop (engine.h): per step, each arrived and unfinished request adds its
// next prompt chunk or its last token; each row's greedy token and one log-probability come back.
// And a trainer's forward over given sequences (score), in one step.
#include "harness/ops/decoder/engine.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

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

RowPicks pick_rows(const at::Tensor& lp, const std::vector<std::int64_t>& wanted) {
  const std::int64_t vocab = lp.size(1);
  // The greedy choice per row, lowest id among equal maxima (vocab where a NaN leaves none).
  const at::Tensor best = lp.amax(-1, /*keepdim=*/true);
  const at::Tensor ids = at::arange(vocab, lp.options().dtype(at::kLong));
  const at::Tensor greedy = at::where(lp == best, ids.unsqueeze(0), vocab).amin(-1);
  const at::Tensor want = at::tensor(wanted, at::kLong).to(lp.device());
  const at::Tensor column = at::where(want >= 0, want, greedy.clamp_max(vocab - 1));
  const at::Tensor values = lp.gather(1, column.unsqueeze(1)).squeeze(1);
  const at::Tensor greedy_host = greedy.cpu();
  const at::Tensor values_host = values.cpu();
  RowPicks out;
  out.greedy.assign(greedy_host.data_ptr<std::int64_t>(),
                    greedy_host.data_ptr<std::int64_t>() + greedy_host.numel());
  out.logprob.assign(values_host.data_ptr<float>(),
                     values_host.data_ptr<float>() + values_host.numel());
  for (std::size_t row = 0; row < wanted.size(); ++row) {
    if (wanted[row] < 0 && out.greedy[row] >= vocab)
      throw std::runtime_error("decoder: log-probability row " + std::to_string(row) +
                               " has no maximum (NaN)");
  }
  return out;
}

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
    std::vector<std::int64_t> wanted;  // per row: the next prompt token, or -1 (greedy)
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
      for (std::int64_t t = 0; t < n; ++t) {
        step.logit_rows.push_back(static_cast<std::int64_t>(step.tokens.size()) + t);
        const std::int64_t next = r.cached + t + 1;  // the position after this row's token
        wanted.push_back(next < length ? prompt[static_cast<std::size_t>(next)] : -1);
      }
      step.tokens.insert(step.tokens.end(), feed.begin(), feed.end());
      step.q_offsets.push_back(static_cast<std::int64_t>(step.tokens.size()));
      step.cache_lengths.push_back(r.cached);
      step.pages.push_back(r.pages);
      running.push_back(i);
    }
    if (running.empty()) continue;                          // nobody has arrived yet
    const at::Tensor lp = forward(c, w, ops, cache, step);  // [tokens, V]
    const RowPicks picks = pick_rows(lp, wanted);
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
          r.prompt_logprobs.push_back(picks.logprob[static_cast<std::size_t>(row)]);
        } else {
          r.tokens.push_back(picks.greedy[static_cast<std::size_t>(row)]);
          r.logprobs.push_back(picks.logprob[static_cast<std::size_t>(row)]);
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

std::vector<at::Tensor> score(const ModelConfig& c, const Weights& w, const OpMix& ops,
                              const std::vector<std::vector<std::int64_t>>& sequences,
                              const std::vector<at::Tensor>& embeddings) {
  if (!embeddings.empty() && embeddings.size() != sequences.size())
    throw std::invalid_argument("decoder::score: one embeddings tensor per sequence, or none");
  StepBatch step;
  step.q_offsets.push_back(0);
  std::vector<std::int64_t> wanted;  // per logit row: the token after the row's
  std::int32_t next_page = 0;
  for (const auto& tokens : sequences) {
    const std::int64_t length = static_cast<std::int64_t>(tokens.size());
    if (length < 2) throw std::invalid_argument("decoder::score: a sequence of at least 2 tokens");
    const std::int64_t first = static_cast<std::int64_t>(step.tokens.size());
    for (std::int64_t t = 0; t + 1 < length; ++t) {
      step.logit_rows.push_back(first + t);
      wanted.push_back(tokens[static_cast<std::size_t>(t + 1)]);
    }
    step.tokens.insert(step.tokens.end(), tokens.begin(), tokens.end());
    step.q_offsets.push_back(static_cast<std::int64_t>(step.tokens.size()));
    step.cache_lengths.push_back(0);
    std::vector<std::int32_t> pages;
    for (std::int64_t p = 0; p < ceil_div(length, c.page_size); ++p) pages.push_back(next_page++);
    step.pages.push_back(std::move(pages));
  }
  if (!embeddings.empty()) step.embeddings = at::cat(embeddings);
  KvCache cache = make_cache(c, next_page, w.embed.scalar_type(), w.embed.device());
  const at::Tensor lp = forward(c, w, ops, cache, step);  // [rows, V]
  const at::Tensor want = at::tensor(wanted, at::kLong).to(lp.device()).unsqueeze(1);
  const at::Tensor picked = lp.gather(1, want).squeeze(1);
  std::vector<at::Tensor> out;
  std::int64_t row = 0;
  for (const auto& tokens : sequences) {
    const std::int64_t n = static_cast<std::int64_t>(tokens.size()) - 1;
    out.push_back(picked.narrow(0, row, n));
    row += n;
  }
  return out;
}

}  // namespace samebits::decoder
