// Works items 0..n-1 on several threads and commits them on the calling thread in their order, so
// a run can overlap its cases' host work while its journal, progress and report stay sequential.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace samebits {

struct OrderedPool {
  int jobs = 1;  // threads working items; <= 1: work and commit alternate on the calling thread
  // Called once on each working thread before its first item; what it returns lives until the
  // thread's last item is done (a device and stream guard). May be empty.
  std::function<std::shared_ptr<void>()> thread_setup;
  // The lane of an item: -1 (the default, also when empty) for any thread; items of one lane
  // (any number >= 0) are all worked by one thread, in order, which turns to the shared items once
  // its lanes are done. Lanes go to threads in turn (lane k to thread k % jobs).
  std::function<int(std::size_t)> lane;
};

// Calls work(i) for every i in [0, n), each on one thread, items claimed in increasing order, and
// commit(i) on the calling thread for i = 0, 1, ... once work(i) has returned. When commit returns
// false no further item is claimed and commit is not called again; items already under way finish
// and are dropped. An exception from work(i) is rethrown by the calling thread at i's turn, after
// the other threads have stopped.
void run_ordered(std::size_t n, const OrderedPool& pool, const std::function<void(std::size_t)>& work,
                 const std::function<bool(std::size_t)>& commit);

}  // namespace samebits
