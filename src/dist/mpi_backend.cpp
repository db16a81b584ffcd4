// The MPI backend of dist (backend.h), built as its own shared object linked with MPI. Rank 0's
// main thread is the coordinator (the only thread of rank 0 that calls MPI); each worker thread of
// the other ranks talks to it over point-to-point messages (MPI_THREAD_MULTIPLE, else one worker
// thread per rank).
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "dist/backend.h"

namespace hetcim::dist::detail {
namespace {

struct World {
  bool active = false;
  int rank = 0, size = 1, thread_level = 0;
  World() {
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

// Waiting without spinning a core (other ranks and threads may share the machine): test, then
// sleep 20 us doubling up to 1 ms. Blocking MPI calls would poll at full speed.
class Pause {
 public:
  void operator()() {
    std::this_thread::sleep_for(pause_);
    pause_ = std::min(pause_ * 2, std::chrono::microseconds(1000));
  }

 private:
  std::chrono::microseconds pause_{20};
};

MPI_Status wait_for(int source, int tag) {
  for (Pause pause;; pause()) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
  }
}

// A collective started with its nonblocking form, finished without spinning.
void finish(MPI_Request request) {
  for (Pause pause;; pause()) {
    int flag = 0;
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
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
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD, &request);
  finish(request);
  text.resize(static_cast<size_t>(n));
  MPI_Ibcast(text.data(), static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD, &request);
  finish(request);
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
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&kind, 1, MPI_INT32_T, 0, MPI_COMM_WORLD, &request);
  finish(request);
  if (kind == 0) return;
  text = broadcast_from(0, text);
  throw SharedFailure(kind == 1 ? ErrorKind::User : ErrorKind::Internal, text);
}

void run_root(Queue& q, int threads, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, std::string&&)>& done) {
  const World& w = world();
  int mine = 0;
  std::vector<int> slots(static_cast<size_t>(w.size));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Igather(&mine, 1, MPI_INT, slots.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  finish(request);
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
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Igather(&mine, 1, MPI_INT, nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD, &request);
  finish(request);
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

class MpiBackend final : public Backend {
 public:
  [[nodiscard]] int rank() const override { return world().rank; }
  [[nodiscard]] int size() const override { return world().size; }
  void agree(const std::exception_ptr& local) override {
    int32_t code = 0;
    std::string text;
    if (local) {
      const auto [k, what] = describe_exception(local);
      code = k == ErrorKind::User ? 1 : 2;
      text = what;
    }
    std::vector<int32_t> codes(static_cast<size_t>(size()));
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallgather(&code, 1, MPI_INT32_T, codes.data(), 1, MPI_INT32_T, MPI_COMM_WORLD, &request);
    finish(request);
    const auto first = std::find_if(codes.begin(), codes.end(), [](int32_t c) { return c != 0; });
    if (first == codes.end()) return;
    const int r = static_cast<int>(first - codes.begin());
    text = broadcast_from(r, text);
    throw SharedFailure(*first == 1 ? ErrorKind::User : ErrorKind::Internal,
                        "rank " + std::to_string(r) + ": " + text);
  }
  void run_queue(const std::vector<Task>& tasks, int threads,
                 const std::function<std::string(size_t)>& work,
                 const std::function<void(size_t, std::string&&)>& done) override {
    if (rank() == 0) {
      Queue q(tasks);
      run_root(q, threads, work, done);
    } else {
      run_worker(threads, work);
    }
  }
  [[nodiscard]] bool active() const override {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
  }
  void abort(int exit_code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
};

}  // namespace
}  // namespace hetcim::dist::detail

extern "C" hetcim::dist::detail::Backend* hetcim_dist_mpi_backend() {
  static hetcim::dist::detail::MpiBackend backend;
  (void)hetcim::dist::detail::world();  // MPI initialised now, finalised at exit
  return &backend;
}
