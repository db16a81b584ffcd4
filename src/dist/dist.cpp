#include "dist/dist.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "dist/backend.h"

#ifndef HETCIM_MPI_BACKEND_NAME
#define HETCIM_MPI_NAME "(libhetcim_mpi.so)"
#else
#define HETCIM_MPI_NAME HETCIM_MPI_BACKEND_NAME
#endif

namespace hetcim::dist {
namespace {

const char* launcher_variable() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return v;
  return nullptr;
}

// The MPI backend when an MPI launcher started this process, else null (one process). Looked for
// beside the program (../lib/, as installed and in the build tree's bin/ and lib/) and at its
// path in the build tree (tests); a launcher without a loadable backend is an error, since N
// copies of the whole run writing the same files would be worse.
detail::Backend* load_backend() {
  const char* variable = launcher_variable();
  if (!variable) return nullptr;
  if (const char* n = std::getenv("OMPI_COMM_WORLD_SIZE"); n && std::string(n) == "1")
    return nullptr;
  std::string reason = "this hetcim was built without MPI";
#ifdef HETCIM_MPI_BACKEND
  std::vector<std::string> paths;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const char* dir : {"../" HETCIM_INSTALL_LIBDIR, "../lib"})
      paths.push_back((exe.parent_path() / dir / HETCIM_MPI_BACKEND_NAME).string());
  paths.emplace_back(HETCIM_MPI_BACKEND);
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  reason = "not found at";
  for (const std::string& p : paths) {
    if (!std::filesystem::exists(p, ec)) {
      reason += " " + p;
      continue;
    }
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw user_error("MPI support ", p, " cannot be loaded: ", dlerror());
    auto* entry = reinterpret_cast<detail::Backend* (*)()>(dlsym(h, "hetcim_dist_mpi_backend"));
    if (!entry) throw internal_error(p, ": no hetcim_dist_mpi_backend");
    return entry();
  }
#endif
  throw user_error("started by an MPI launcher (", variable, " is set) but MPI support ",
                   HETCIM_MPI_NAME, " is missing: ", reason, "; build hetcim with MPI (Debian: ",
                   "libopenmpi-dev) or run it without mpirun/srun");
}

detail::Backend* backend() {
  static detail::Backend* b = load_backend();
  return b;
}

}  // namespace

int rank() {
  return backend() ? backend()->rank() : 0;
}

int size() {
  return backend() ? backend()->size() : 1;
}

std::string describe() {
  return size() == 1 ? "1 process" : std::to_string(size()) + " MPI ranks";
}

void agree(const std::exception_ptr& local) {
  if (size() > 1) return backend()->agree(local);
  if (local) std::rethrow_exception(local);
}

void run_queue(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t)>& work,
               const std::function<void(size_t, std::string&&)>& done) {
  if (threads < 1) throw internal_error("dist::run_queue: threads must be >= 1");
  if (size() > 1) return backend()->run_queue(tasks, threads, work, done);
  run_local(tasks, threads, work, done);
}

void run_local(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t)>& work,
               const std::function<void(size_t, std::string&&)>& done) {
  if (threads < 1) throw internal_error("dist::run_local: threads must be >= 1");
  detail::Queue q(tasks);
  std::vector<std::thread> pool = detail::start_local_workers(
      q, std::min<int>(threads, static_cast<int>(std::max<size_t>(1, tasks.size()))), 0, work,
      done);
  for (std::thread& t : pool) t.join();
  if (q.failure) std::rethrow_exception(q.failure);
}

bool distributed_now() {
  // Without initialising anything: only a backend already loaded counts.
  if (!launcher_variable()) return false;
  try {
    return backend() && backend()->active() && backend()->size() > 1;
  } catch (const Error&) {
    return false;
  }
}

void abort_all(int exit_code) {
  if (distributed_now()) backend()->abort(exit_code);
}

}  // namespace hetcim::dist
