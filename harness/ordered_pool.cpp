// Works items 0..n-1 on several threads and commits them on the calling thread in their order, so
// a run can overlap its cases' host work while its journal, progress and report stay sequential.
#include "harness/ordered_pool.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace samebits {

void run_ordered(std::size_t n, const OrderedPool& pool, const std::function<void(std::size_t)>& work,
                 const std::function<bool(std::size_t)>& commit) {
  if (pool.jobs <= 1 || n <= 1) {
    const std::shared_ptr<void> setup = pool.thread_setup ? pool.thread_setup() : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
      work(i);
      if (!commit(i)) return;
    }
    return;
  }
  std::mutex mutex;
  std::condition_variable finished;
  std::vector<char> done(n, 0);
  std::vector<std::exception_ptr> errors(n);
  // One queue per lane, then the shared queue last; each claimed in increasing order.
  std::vector<std::vector<std::size_t>> queues;
  std::map<int, std::size_t> queue_of_lane;
  std::vector<std::size_t> shared;
  for (std::size_t i = 0; i < n; ++i) {
    const int lane = pool.lane ? pool.lane(i) : -1;
    if (lane < 0) {
      shared.push_back(i);
      continue;
    }
    const auto [it, added] = queue_of_lane.emplace(lane, queues.size());
    if (added) queues.emplace_back();
    queues[it->second].push_back(i);
  }
  const std::size_t lanes = queues.size();
  queues.push_back(std::move(shared));
  std::vector<std::atomic<std::size_t>> cursor(queues.size());
  std::atomic<bool> stop{false};
  std::exception_ptr setup_error;  // of the first thread whose setup threw
  const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(pool.jobs), n);
  // The queues thread t works, in order: its lanes, then the shared one.
  const auto queues_of = [&](std::size_t t) {
    std::vector<std::size_t> mine;
    for (std::size_t q = t; q < lanes; q += threads) mine.push_back(q);
    mine.push_back(lanes);
    return mine;
  };
  const auto claim = [&](std::size_t queue, std::size_t* item) {
    const std::size_t k = cursor[queue]++;
    if (k >= queues[queue].size()) return false;
    *item = queues[queue][k];
    return true;
  };
  const auto record = [&](std::size_t i, std::exception_ptr error) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      errors[i] = std::move(error);
      done[i] = 1;
    }
    finished.notify_all();
  };
  const auto worker = [&](std::size_t t) {
    std::shared_ptr<void> setup;
    try {
      if (pool.thread_setup) setup = pool.thread_setup();
    } catch (...) {
      // The thread cannot work: the run ends with its error at the next item committed.
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!setup_error) setup_error = std::current_exception();
      }
      finished.notify_all();
      return;
    }
    for (const std::size_t queue : queues_of(t)) {
      std::size_t i = 0;
      while (!stop && claim(queue, &i)) {
        std::exception_ptr error;
        try {
          work(i);
        } catch (...) {
          error = std::current_exception();
        }
        record(i, error);
      }
    }
  };
  std::vector<std::thread> workers;
  // Whatever ends the commit loop (an error, a commit that stops, the last item), no thread is
  // left behind: the rest stop claiming and finish the item they hold.
  struct Joiner {
    std::atomic<bool>& stop;
    std::vector<std::thread>& workers;
    ~Joiner() {
      stop = true;
      for (auto& t : workers) t.join();
    }
  } joiner{stop, workers};
  for (std::size_t t = 0; t < threads; ++t) workers.emplace_back(worker, t);
  for (std::size_t i = 0; i < n; ++i) {
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mutex);
      finished.wait(lock, [&] { return done[i] != 0 || setup_error; });
      error = done[i] != 0 ? errors[i] : setup_error;
    }
    if (error) {
      stop = true;
      std::rethrow_exception(error);
    }
    if (!commit(i)) return;
  }
}

}  // namespace samebits
