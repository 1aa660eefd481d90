// run_ordered: every item worked once, committed in order on the calling thread whatever the
// threads' timing; each lane on one thread in order; a stopping commit, a throwing item, a
// thread that cannot start.
#include "harness/ordered_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace ordered_pool_test_file {}
using namespace ordered_pool_test_file;
namespace ordered_pool_test_file {

// Items take uneven times (later ones often faster), so threads finish out of order.
void uneven_pause(std::size_t i) {
  std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 13 * 50));
}

TEST(OrderedPool, CommitsEveryItemInOrderOnTheCallingThread) {
  for (const int jobs : {1, 2, 5}) {
    const std::size_t n = 200;
    std::vector<std::atomic<int>> worked(n);
    std::mutex m;
    std::set<std::thread::id> threads;
    std::vector<std::size_t> committed;
    const auto caller = std::this_thread::get_id();
    OrderedPool pool;
    pool.jobs = jobs;
    run_ordered(
        n, pool,
        [&](std::size_t i) {
          uneven_pause(i);
          ++worked[i];
          const std::lock_guard<std::mutex> lock(m);
          threads.insert(std::this_thread::get_id());
        },
        [&](std::size_t i) {
          EXPECT_EQ(std::this_thread::get_id(), caller);
          EXPECT_EQ(worked[i].load(), 1) << "item " << i << " committed before or without work";
          committed.push_back(i);
          return true;
        });
    ASSERT_EQ(committed.size(), n) << "jobs " << jobs;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(committed[i], i);
      EXPECT_EQ(worked[i].load(), 1) << "item " << i << " jobs " << jobs;
    }
    if (jobs == 1) {
      EXPECT_EQ(threads, std::set<std::thread::id>{caller});
    } else {
      EXPECT_GT(threads.size(), 1u) << "jobs " << jobs << " ran on one thread";
    }
  }
}

TEST(OrderedPool, OneJobAlternatesWorkAndCommit) {
  std::vector<std::string> log;
  OrderedPool pool;
  run_ordered(
      3, pool, [&](std::size_t i) { log.push_back("work " + std::to_string(i)); },
      [&](std::size_t i) {
        log.push_back("commit " + std::to_string(i));
        return true;
      });
  EXPECT_EQ(log, (std::vector<std::string>{"work 0", "commit 0", "work 1", "commit 1", "work 2",
                                           "commit 2"}));
}

// Lane 0: multiples of 3; lane 7: other multiples of 5; the rest shared.
int lane_of(std::size_t i) { return i % 3 == 0 ? 0 : i % 5 == 0 ? 7 : -1; }

TEST(OrderedPool, EachLaneRunsOnOneThreadInOrder) {
  const std::size_t n = 150;
  std::mutex m;
  std::map<std::size_t, std::thread::id> thread_of;
  std::map<int, std::vector<std::size_t>> order;
  OrderedPool pool;
  pool.jobs = 4;
  pool.lane = lane_of;
  run_ordered(
      n, pool,
      [&](std::size_t i) {
        uneven_pause(i);
        const std::lock_guard<std::mutex> lock(m);
        thread_of[i] = std::this_thread::get_id();
        order[lane_of(i)].push_back(i);
      },
      [](std::size_t) { return true; });
  ASSERT_EQ(thread_of.size(), n);
  std::map<int, std::set<std::thread::id>> threads;
  for (std::size_t i = 0; i < n; ++i) threads[lane_of(i)].insert(thread_of[i]);
  EXPECT_EQ(threads[0].size(), 1u);
  EXPECT_EQ(threads[7].size(), 1u);
  EXPECT_NE(*threads[0].begin(), *threads[7].begin()) << "two lanes, four threads: one each";
  for (const int lane : {0, 7}) {
    EXPECT_TRUE(std::is_sorted(order[lane].begin(), order[lane].end())) << "lane " << lane;
  }
}

TEST(OrderedPool, AThreadWhoseSetupFailsEndsTheRunWithItsError) {
  std::atomic<int> setups{0};
  OrderedPool pool;
  pool.jobs = 3;
  pool.lane = lane_of;
  pool.thread_setup = [&]() -> std::shared_ptr<void> {
    if (++setups == 2) throw std::runtime_error("no stream for this thread");
    return nullptr;
  };
  EXPECT_THROW(run_ordered(
                   60, pool, [](std::size_t i) { uneven_pause(i); },
                   [](std::size_t) { return true; }),
               std::runtime_error);
}

TEST(OrderedPool, ACommitThatStopsEndsTheRun) {
  std::vector<std::size_t> committed;
  std::atomic<std::size_t> worked{0};
  OrderedPool pool;
  pool.jobs = 3;
  run_ordered(
      1000, pool,
      [&](std::size_t i) {
        uneven_pause(i);
        ++worked;
      },
      [&](std::size_t i) {
        committed.push_back(i);
        return i < 10;
      });
  EXPECT_EQ(committed.size(), 11u);
  EXPECT_LT(worked.load(), 1000u) << "items kept being claimed after the stop";
}

TEST(OrderedPool, AnItemsErrorIsRethrownAtItsTurn) {
  for (const int jobs : {1, 4}) {
    std::vector<std::size_t> committed;
    OrderedPool pool;
    pool.jobs = jobs;
    EXPECT_THROW(run_ordered(
                     50, pool,
                     [&](std::size_t i) {
                       uneven_pause(i);
                       if (i == 17) throw std::runtime_error("item 17");
                     },
                     [&](std::size_t i) {
                       committed.push_back(i);
                       return true;
                     }),
                 std::runtime_error);
    ASSERT_EQ(committed.size(), 17u) << "jobs " << jobs;
    EXPECT_EQ(committed.back(), 16u);
  }
}

}  // namespace ordered_pool_test_file
}  // namespace samebits
