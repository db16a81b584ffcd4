// Process start-to-exit wall time: each command (one argument, split on spaces) is started with
// fork + execv, its stdout and stderr sent to /dev/null, and waited for; RUNS times per command,
// commands interleaved round by round so that a change of machine load hits all of them alike.
// Prints the median and the minimum per command, and the median minus that of the first command
// (the floor). A command that exits non-zero aborts the benchmark.
//   startup_bench RUNS "FLOOR" "CMD ARGS..." ...
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

double run_once(const std::vector<std::string>& argv) {
  std::vector<char*> a;
  for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(a[0], a.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "startup_bench: '%s' failed (status %d)\n", argv[0].c_str(), status);
    std::exit(1);
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RUNS FLOOR [COMMAND...]\n", argv[0]);
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> labels;
  for (int i = 2; i < argc; ++i) {
    std::istringstream in(argv[i]);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    commands.push_back(words);
    labels.push_back(argv[i]);
  }
  std::vector<std::vector<double>> times(commands.size());
  for (size_t c = 0; c < commands.size(); ++c) (void)run_once(commands[c]);  // warm the page cache
  for (int r = 0; r < runs; ++r)
    for (size_t c = 0; c < commands.size(); ++c) times[c].push_back(run_once(commands[c]));
  const double floor = median(times[0]);
  std::printf("%-70s %10s %10s %12s\n", "command (median of runs, wall)", "median_ms", "min_ms",
              "above_floor");
  for (size_t c = 0; c < commands.size(); ++c)
    std::printf("%-70s %10.1f %10.1f %12.1f\n", labels[c].c_str(), 1e3 * median(times[c]),
                1e3 * *std::min_element(times[c].begin(), times[c].end()),
                1e3 * (median(times[c]) - floor));
  return 0;
}
