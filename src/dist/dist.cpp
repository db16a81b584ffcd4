#include "dist/dist.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#ifdef HETCIM_WITH_MPI
#include <mpi.h>
#endif

namespace hetcim::dist {
namespace {

// The queue of one run: the tasks in the order they are handed out, the failure that stops it,
// and the lock under which `done` is called.
struct Queue {
  std::vector<Task> order;
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  std::mutex mutex;
  std::exception_ptr failure;
  int failure_rank = 0;

  explicit Queue(std::vector<Task> tasks) : order(std::move(tasks)) {
    std::stable_sort(order.begin(), order.end(), [](const Task& a, const Task& b) {
      return a.cost != b.cost ? a.cost > b.cost : a.id < b.id;
    });
  }
  std::optional<size_t> take() {
    if (stopped) return std::nullopt;
    const size_t i = next++;
    if (i >= order.size()) return std::nullopt;
    return order[i].id;
  }
  void fail(std::exception_ptr e, int rank) {
    std::lock_guard lock(mutex);
    if (!failure) failure = std::move(e), failure_rank = rank;
    stopped = true;
  }
  void deliver(size_t id, std::string&& result,
               const std::function<void(size_t, std::string&&)>& done, int rank) {
    try {
      std::lock_guard lock(mutex);
      if (!stopped) done(id, std::move(result));
    } catch (...) {
      fail(std::current_exception(), rank);
    }
  }
};

// A worker thread of this process taking from `q` directly (every thread of a single process,
// and rank 0's own threads beside its coordinator).
void local_worker(Queue& q, int rank, const std::function<std::string(size_t)>& work,
                  const std::function<void(size_t, std::string&&)>& done) {
  while (const std::optional<size_t> id = q.take()) {
    std::string result;
    try {
      result = work(*id);
    } catch (...) {
      q.fail(std::current_exception(), rank);
      return;
    }
    q.deliver(*id, std::move(result), done, rank);
  }
}

std::vector<std::thread> start_local_workers(
    Queue& q, int threads, int rank, const std::function<std::string(size_t)>& work,
    const std::function<void(size_t, std::string&&)>& done) {
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, rank] { local_worker(q, rank, work, done); });
  return pool;
}

// The kind and message of an exception (every exception a task may throw).
std::pair<ErrorKind, std::string> describe_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return {x.kind(), x.what()};
  } catch (const std::exception& x) {
    return {ErrorKind::Internal, std::string("internal error: ") + x.what()};
  } catch (...) {
    return {ErrorKind::Internal, "internal error: an unknown exception"};
  }
}

#ifdef HETCIM_WITH_MPI

bool started_by_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

struct World {
  bool active = false;
  int rank = 0, size = 1, thread_level = 0;
  World() {
    if (!started_by_launcher()) return;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &thread_level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    active = true;
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World() {
    int finalized = 0;
    if (active && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
  }
};

World& world() {
  static World w;
  return w;
}

// Messages: a worker's request (a header, then its result or error text) on kRequest; rank 0's
// reply (the next task id, or -1: stop) on kReply + the worker's slot.
constexpr int kRequest = 1;
constexpr int kReply = 100;
enum class Kind : int32_t { Ready, Result, UserFailure, InternalFailure };
struct Header {
  int32_t slot = 0;
  Kind kind = Kind::Ready;
  int64_t id = -1;
};

// Waits for a message without spinning a core (other ranks and threads share the machine):
// probes, then sleeps 20 us doubling up to 1 ms.
MPI_Status wait_for(int source, int tag) {
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void send_request(const Header& h, const std::string& payload) {
  std::string buf(sizeof h + payload.size(), '\0');
  std::memcpy(buf.data(), &h, sizeof h);
  std::memcpy(buf.data() + sizeof h, payload.data(), payload.size());
  MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, kRequest, MPI_COMM_WORLD);
}

std::string broadcast_from(int root, std::string text) {
  int64_t n = static_cast<int64_t>(text.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
  text.resize(static_cast<size_t>(n));
  MPI_Bcast(text.data(), static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD);
  return text;
}

// Rank 0's verdict on the queue, known to every rank afterwards.
void broadcast_failure(const Queue* q) {
  int32_t kind = 0;  // 0 none, 1 user, 2 internal
  std::string text;
  if (q && q->failure) {
    const auto [k, what] = describe_exception(q->failure);
    kind = k == ErrorKind::User ? 1 : 2;
    text = "rank " + std::to_string(q->failure_rank) + ": " + what;
  }
  MPI_Bcast(&kind, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
  if (kind == 0) return;
  text = broadcast_from(0, text);
  throw SharedFailure(kind == 1 ? ErrorKind::User : ErrorKind::Internal, text);
}

void run_root(Queue& q, int threads, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, std::string&&)>& done) {
  const World& w = world();
  int mine = 0;
  std::vector<int> slots(static_cast<size_t>(w.size));
  MPI_Gather(&mine, 1, MPI_INT, slots.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int remote = 0;
  for (int s : slots) remote += s;
  std::vector<std::thread> pool = start_local_workers(q, threads, 0, work, done);
  // The coordinator: answers every request with the next task or a stop, until every remote
  // worker has been told to stop.
  for (int stopped = 0; stopped < remote;) {
    const MPI_Status st = wait_for(MPI_ANY_SOURCE, kRequest);
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::string buf(static_cast<size_t>(count), '\0');
    MPI_Recv(buf.data(), count, MPI_BYTE, st.MPI_SOURCE, kRequest, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    Header h;
    std::memcpy(&h, buf.data(), sizeof h);
    std::string payload = buf.substr(sizeof h);
    if (h.kind == Kind::Result) {
      q.deliver(static_cast<size_t>(h.id), std::move(payload), done, st.MPI_SOURCE);
    } else if (h.kind != Kind::Ready) {
      const ErrorKind k = h.kind == Kind::UserFailure ? ErrorKind::User : ErrorKind::Internal;
      q.fail(std::make_exception_ptr(Error(k, payload)), st.MPI_SOURCE);
    }
    const std::optional<size_t> next = q.take();
    const int64_t reply = next ? static_cast<int64_t>(*next) : -1;
    MPI_Send(&reply, 1, MPI_INT64_T, st.MPI_SOURCE, kReply + h.slot, MPI_COMM_WORLD);
    if (reply < 0) ++stopped;
  }
  for (std::thread& t : pool) t.join();
  broadcast_failure(&q);
}

void run_worker(int threads, const std::function<std::string(size_t)>& work) {
  const World& w = world();
  // Several threads of one rank talk to rank 0 only when MPI allows it.
  int mine = w.thread_level >= MPI_THREAD_MULTIPLE ? threads : 1;
  MPI_Gather(&mine, 1, MPI_INT, nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD);
  const auto slot_loop = [&](int slot) {
    Header h;
    h.slot = slot;
    std::string payload;
    for (;;) {
      send_request(h, payload);
      wait_for(0, kReply + slot);
      int64_t id = -1;
      MPI_Recv(&id, 1, MPI_INT64_T, 0, kReply + slot, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (id < 0) return;
      h.id = id;
      try {
        payload = work(static_cast<size_t>(id));
        h.kind = Kind::Result;
      } catch (...) {
        const auto [k, what] = describe_exception(std::current_exception());
        h.kind = k == ErrorKind::User ? Kind::UserFailure : Kind::InternalFailure;
        payload = what;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int s = 1; s < mine; ++s) pool.emplace_back(slot_loop, s);
  slot_loop(0);
  for (std::thread& t : pool) t.join();
  broadcast_failure(nullptr);
}

#endif  // HETCIM_WITH_MPI

}  // namespace

bool built_with_mpi() {
#ifdef HETCIM_WITH_MPI
  return true;
#else
  return false;
#endif
}

int rank() {
#ifdef HETCIM_WITH_MPI
  return world().rank;
#else
  return 0;
#endif
}

int size() {
#ifdef HETCIM_WITH_MPI
  return world().size;
#else
  return 1;
#endif
}

std::string describe() {
  return size() == 1 ? "1 process" : std::to_string(size()) + " MPI ranks";
}

void agree(const std::exception_ptr& local) {
  if (size() == 1) {
    if (local) std::rethrow_exception(local);
    return;
  }
#ifdef HETCIM_WITH_MPI
  int32_t code = 0;
  std::string text;
  if (local) {
    const auto [k, what] = describe_exception(local);
    code = k == ErrorKind::User ? 1 : 2;
    text = what;
  }
  std::vector<int32_t> codes(static_cast<size_t>(size()));
  MPI_Allgather(&code, 1, MPI_INT32_T, codes.data(), 1, MPI_INT32_T, MPI_COMM_WORLD);
  const auto first = std::find_if(codes.begin(), codes.end(), [](int32_t c) { return c != 0; });
  if (first == codes.end()) return;
  const int r = static_cast<int>(first - codes.begin());
  text = broadcast_from(r, text);
  throw SharedFailure(*first == 1 ? ErrorKind::User : ErrorKind::Internal,
                      "rank " + std::to_string(r) + ": " + text);
#endif
}

void run_queue(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t)>& work,
               const std::function<void(size_t, std::string&&)>& done) {
  if (threads < 1) throw internal_error("dist::run_queue: threads must be >= 1");
#ifdef HETCIM_WITH_MPI
  if (size() > 1) {
    if (rank() == 0) {
      Queue q(tasks);
      run_root(q, threads, work, done);
    } else {
      run_worker(threads, work);
    }
    return;
  }
#endif
  run_local(tasks, threads, work, done);
}

void run_local(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t)>& work,
               const std::function<void(size_t, std::string&&)>& done) {
  if (threads < 1) throw internal_error("dist::run_local: threads must be >= 1");
  Queue q(tasks);
  std::vector<std::thread> pool = start_local_workers(
      q, std::min<int>(threads, static_cast<int>(std::max<size_t>(1, tasks.size()))), 0, work,
      done);
  for (std::thread& t : pool) t.join();
  if (q.failure) std::rethrow_exception(q.failure);
}

bool distributed_now() {
#ifdef HETCIM_WITH_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized && size() > 1;
#else
  return false;
#endif
}

void abort_all(int exit_code) {
#ifdef HETCIM_WITH_MPI
  if (!distributed_now()) return;
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
#else
  (void)exit_code;
#endif
}

}  // namespace hetcim::dist
