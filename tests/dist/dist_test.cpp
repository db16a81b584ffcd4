// The work queue and the setup agreement of dist/dist.h. Run as one process (ctest's discovered
// tests: the serial case, with the hand-out order checked) and under `mpirun -np 2` (the test
// dist_test_mpi_2_ranks: every task done once wherever it ran, every rank took part, a failure on
// any rank ends every rank with its message). Every rank runs the same tests in the same order,
// since the queue and the agreement are collective.
#include "dist/dist.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

namespace hetcim::dist {
namespace {

// Ten tasks whose costs tie in pairs: the order costliest first, ties by id, is known by hand.
std::vector<Task> ten_tasks() {
  std::vector<Task> t;
  for (size_t i = 0; i < 10; ++i) t.push_back({i, static_cast<double>(i / 2)});
  return t;
}

TEST(DistQueue, EveryTaskOnceWithItsResultOnRankZero) {
  std::map<size_t, std::string> got;
  std::vector<size_t> order;
  run_queue(
      ten_tasks(), 1,
      [](size_t id) {
        // Long enough that rank 0's own thread cannot drain the queue before rank 1 asks.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::to_string(id * id) + "@" + std::to_string(rank());
      },
      [&](size_t id, std::string&& r) {
        EXPECT_TRUE(got.emplace(id, r).second) << "task " << id << " delivered twice";
        order.push_back(id);
      });
  if (!is_root()) {
    EXPECT_TRUE(got.empty());  // only rank 0 receives results
    return;
  }
  ASSERT_EQ(got.size(), 10u);
  std::set<std::string> ranks;
  for (const auto& [id, r] : got) {
    EXPECT_EQ(r.substr(0, r.find('@')), std::to_string(id * id));
    ranks.insert(r.substr(r.find('@') + 1));
  }
  EXPECT_EQ(ranks.size(), static_cast<size_t>(size())) << "every rank solved some task";
  if (size() == 1) {
    // One thread takes the tasks in the order handed out: costliest first, ties by id.
    EXPECT_EQ(order, (std::vector<size_t>{8, 9, 6, 7, 4, 5, 2, 3, 0, 1}));
  }
}

TEST(DistQueue, ManyThreadsDoEveryTaskOnce) {
  std::vector<Task> tasks;
  for (size_t i = 0; i < 200; ++i) tasks.push_back({i, static_cast<double>(i % 7)});
  std::vector<int> seen(200, 0);
  run_queue(
      tasks, 4, [](size_t id) { return std::to_string(id + 1); },
      [&](size_t id, std::string&& r) {
        EXPECT_EQ(r, std::to_string(id + 1));
        ++seen[id];
      });
  if (is_root()) {
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "task " << i;
  }
}

TEST(DistQueue, NoTasks) {
  int calls = 0;
  run_queue(
      {}, 2, [](size_t) { return std::string(); }, [&](size_t, std::string&&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(DistQueue, AFailingTaskEndsEveryRankWithItsMessage) {
  const auto run = [] {
    run_queue(
        ten_tasks(), 1,
        [](size_t id) -> std::string {
          if (id == 3) throw user_error("task 3: bad input");
          return "ok";
        },
        [](size_t, std::string&&) {});
  };
  if (size() == 1) {
    // One process: the task's own exception.
    try {
      run();
      FAIL() << "no exception";
    } catch (const SharedFailure&) {
      FAIL() << "a single process rethrows the task's own exception";
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), "task 3: bad input");
    }
    return;
  }
  try {
    run();
    FAIL() << "no exception on rank " << rank();
  } catch (const SharedFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("rank ", 0), 0u) << m;
    EXPECT_NE(m.find(": task 3: bad input"), std::string::npos) << m;
  }
}

TEST(DistQueue, AFailingResultHandlerStopsTheQueue) {
  // `done` throws on rank 0 (e.g. a cache file it cannot write): every rank ends.
  const auto run = [] {
    run_queue(
        ten_tasks(), 1, [](size_t) { return std::string("x"); },
        [](size_t id, std::string&&) {
          if (id == 5) throw internal_error("cannot keep task 5");
        });
  };
  EXPECT_THROW(run(), Error);
}

TEST(DistAgree, EveryRankThrowsTheLowestFailingRanksMessage) {
  EXPECT_NO_THROW(agree(nullptr));
  // The last rank fails (the only rank of a single process).
  std::exception_ptr mine;
  if (rank() == size() - 1) mine = std::make_exception_ptr(user_error("m.onnx: not a model"));
  try {
    agree(mine);
    FAIL() << "no exception on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    const std::string expected =
        size() == 1 ? "m.onnx: not a model"
                    : "rank " + std::to_string(size() - 1) + ": m.onnx: not a model";
    EXPECT_EQ(std::string(e.what()), expected);
    EXPECT_EQ(dynamic_cast<const SharedFailure*>(&e) != nullptr, size() > 1);
  }
}

}  // namespace
}  // namespace hetcim::dist
