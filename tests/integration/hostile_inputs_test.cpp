// Every row of docs/hostile-inputs.md run against the built `hetcim` binary. The table is the
// test's data: a row names its setup, its command line, the expected exit code (and a signal to
// send), a substring the message must contain and extra checks. Every row also checks: no
// "internal error", no crash (no exit by a signal other than the one sent), and no temporary file
// (".hetcim-*.tmp", "*.tmp.*", "*.gp") left anywhere in the row's scratch directory.
//
// Table syntax (one row per line, cells split on " | "):
//   | id | what | setup | `command` | exit | message | checks |
// - command: the arguments after `hetcim`, split on spaces; '...' quotes a word with spaces and
//   a backslash makes the next character literal (\' an apostrophe, "\ " a space). hetcim runs
//   in {d}.
//   {d} is the row's scratch directory, {long} a 5,000-character path inside it.
// - setup: steps separated by " ; ": write:NAME=TEXT (\n is a newline), bytes:NAME=HEX,
//   mkdir:NAME, mkfifo:NAME, symlink:NAME=TARGET, stdin:NAME (the command reads the file NAME,
//   made by an earlier step, on its standard input; otherwise /dev/null),
//   onnx:NAME=tiny|custom-domain|batch-2^40|non-utf8-name|reshape-10-to-7x7|resize-scale-0|
//   concat-2^62,
//   hetcim:ARGS (run hetcim, must exit 0), tamper:DIR (every *.json in DIR gets "latency":-5),
//   garbage:DIR (every file in DIR becomes "not json {"), copy-first:DIR (every file in DIR, in
//   name order, gets the bytes of the first), set:DIR=FIELD:VALUE (every *.json in DIR gets
//   "FIELD":VALUE for a scalar FIELD).
//   Files hetcim keeps for itself: to-link:DIR=TARGET, to-fifo:DIR, to-dir:DIR (every file in
//   DIR becomes a symbolic link to TARGET, a FIFO or a directory). Whole inputs: copy:NAME=SRC
//   (SRC a file of the source tree, e.g. data/paper/seed001.yaml), replace:NAME=OLD=>NEW (every
//   OLD in NAME becomes NEW; \n is a newline), sparse:NAME=BYTES (a file of BYTES zero
//   bytes that takes no disk).
// - exit: the code, or "130 INT 1.5" (send SIGINT 1.5 s after hetcim's main() installed its
//   signal handling; the code expected after it), or
//   "130 INT staged:{d}/o/figures" (send it once a staged output exists under that directory).
// - checks: space-separated absent:P exists:P chardev:P fifo:P symlink:P
//   contains:P=TEXT lacks:P=TEXT out-lacks=TEXT short (the output has < 400 characters).
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace fx = hetcim::onnxio::fixtures;

struct Row {
  int line = 0;
  std::string id, what, setup, command, exit, message, checks;
};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + sep.size())
    out.push_back(s.substr(b, e - b));
  out.push_back(s.substr(b));
  return out;
}

std::vector<Row> load_rows() {
  std::ifstream in(HETCIM_HOSTILE_TABLE);
  std::vector<Row> rows;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::vector<std::string> c = split(line.substr(2, line.size() - 4), " | ");
    if (c.size() != 7 || trim(c[0]) == "id" || trim(c[0]).rfind("---", 0) == 0) continue;
    Row r{n, trim(c[0]), trim(c[1]), trim(c[2]), trim(c[3]), trim(c[4]), trim(c[5]), trim(c[6])};
    if (r.command.size() >= 2 && r.command.front() == '`')
      r.command = r.command.substr(1, r.command.size() - 2);
    if (r.message.size() >= 2 && r.message.front() == '`')
      r.message = r.message.substr(1, r.message.size() - 2);
    rows.push_back(r);
  }
  return rows;
}

std::string expand(std::string s, const std::string& dir) {
  const std::string long_path = dir + "/" + std::string(200, 'x') + "/" + [] {
    std::string p;
    for (int i = 0; i < 24; ++i) p += std::string(200, 'y') + "/";
    return p;
  }() + "out.json";
  for (size_t p; (p = s.find("{long}")) != std::string::npos;) s.replace(p, 6, long_path);
  for (size_t p; (p = s.find("{d}")) != std::string::npos;) s.replace(p, 3, dir);
  for (size_t p; (p = s.find("\\n")) != std::string::npos;) s.replace(p, 2, "\n");
  return s;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  bool quoted = false, have = false, escaped = false;
  for (char c : s) {
    if (escaped) {
      cur += c;
      have = true;
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '\'') {
      quoted = !quoted;
      have = true;
    } else if (c == ' ' && !quoted) {
      if (have) w.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) w.push_back(cur);
  return w;
}

struct CliRun {
  int code = -1000;  // exit code, or -signal when the process died by a signal
  std::string output;
};

bool has_staged_file(const std::string& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename().string().rfind(".hetcim-", 0) == 0) return true;
  return false;
}

// True once the process catches `sig` (SigCgt in /proc/PID/status): hetcim's main() has installed
// its interrupt handling, so a signal now tests hetcim, not the dynamic loader.
bool catches(pid_t pid, int sig) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigCgt:", 0) == 0)
      return (std::stoull(trim(line.substr(7)), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

// Runs hetcim with `args` (no shell), stdout and stderr into one file; when sig != 0 sends it
// after `delay` seconds or, with a non-empty `staged_in`, as soon as a staged output
// (.hetcim-*.tmp) exists under that directory. Kills the run after 120 s.
CliRun run_hetcim(const std::vector<std::string>& args, const std::string& dir, int sig = 0,
                  double delay = 0, const std::string& staged_in = "",
                  const std::string& stdin_file = "/dev/null") {
  const std::string log = dir + "/.output.log";
  std::vector<std::string> argv = {HETCIM_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, stdin_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, HETCIM_BIN, &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return {};
  auto start = std::chrono::steady_clock::now();
  bool sent = false, ready = sig == 0;
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (!ready && catches(pid, sig)) {
      ready = true;
      start = std::chrono::steady_clock::now();  // delays count from here
    }
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool due = staged_in.empty() ? t >= delay : has_staged_file(staged_in) || t > 60;
    if (sig != 0 && !sent && ready && due) {
      ::kill(pid, sig);
      sent = true;
    }
    if (t > 120) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(log);
  return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), ss.str()};
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

onnx::ModelProto onnx_fixture(const std::string& kind) {
  using onnx::TensorProto;
  if (kind == "tiny") return fx::tiny_conv();
  if (kind == "batch-2^40") {
    const int64_t big = int64_t{1} << 40;
    fx::ModelBuilder b(13, "huge_batch");
    b.input("x", TensorProto::FLOAT, {big, int64_t{3}, int64_t{8}, int64_t{8}});
    b.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.0f));
    b.node("Conv", {"x", "w"}, {"y"}, "conv");
    b.output("y", TensorProto::FLOAT, {big, int64_t{4}, int64_t{6}, int64_t{6}});
    return b.model();
  }
  if (kind == "custom-domain") {
    fx::ModelBuilder b(13, "custom");
    b.add_opset("com.acme", 1);
    b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
    b.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.0f));
    b.node("Conv", {"x", "w"}, {"c"}, "conv");
    b.node("Relu", {"c"}, {"r"}, "relu");
    b.node("Frobnicate", {"r"}, {"y"}, "frob", "com.acme");
    b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}, int64_t{6}, int64_t{6}});
    return b.model();
  }
  if (kind == "non-utf8-name") {  // a node name with a byte that is not UTF-8 (0xFF)
    fx::ModelBuilder b(13, "latin1");
    b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
    b.node("Relu", {"x"}, {"y"}, "caf\xE9\xFF");
    b.output("y", TensorProto::FLOAT, {int64_t{1}, int64_t{4}});
    return b.model();
  }
  if (kind == "reshape-10-to-7x7") {  // the file declares the (impossible) output shape
    fx::ModelBuilder b(13, "bad_reshape");
    b.input("x", TensorProto::FLOAT, {int64_t{10}});
    b.init_int64("shape", {2}, {7, 7});
    b.node("Reshape", {"x", "shape"}, {"y"}, "squash");
    b.value_info("y", TensorProto::FLOAT, {int64_t{7}, int64_t{7}});
    b.node("Relu", {"y"}, {"z"}, "relu");
    b.output("z", TensorProto::FLOAT, {int64_t{7}, int64_t{7}});
    return b.model();
  }
  if (kind == "resize-scale-0") {
    fx::ModelBuilder b(13, "resize_zero");
    b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{1}, int64_t{4}, int64_t{4}});
    b.init_float("scales", {4}, {1.0f, 1.0f, 0.0f, 0.0f});
    fx::attr_string(b.node("Resize", {"x", "", "scales"}, {"y"}, "up"), "mode", "nearest");
    b.output("y", TensorProto::FLOAT, {"n", "c", "h", "w"});
    return b.model();
  }
  if (kind == "concat-2^62") {  // ONNX 1.12 infers 2^62 + 2^62 as a dimension of 0
    fx::ModelBuilder b(13, "huge_concat");
    b.input("x", TensorProto::FLOAT, {int64_t{1}, int64_t{1} << 62});
    fx::attr_int(b.node("Concat", {"x", "x"}, {"y"}, "cat"), "axis", 1);
    b.output("y", TensorProto::FLOAT, {"n", "c"});
    return b.model();
  }
  ADD_FAILURE() << "unknown onnx fixture " << kind;
  return {};
}

void setup(const Row& row, const std::string& dir, std::string& stdin_file) {
  if (row.setup.empty() || row.setup == "-") return;
  for (std::string step : split(row.setup, " ; ")) {
    step = trim(step);
    if (step.size() >= 2 && step.front() == '`') step = step.substr(1, step.size() - 2);
    const size_t colon = step.find(':');
    ASSERT_NE(colon, std::string::npos) << step;
    const std::string kind = step.substr(0, colon), arg = step.substr(colon + 1);
    const size_t eq = arg.find('=');
    const std::string name = expand(arg.substr(0, eq), dir);
    const std::string value = eq == std::string::npos ? "" : expand(arg.substr(eq + 1), dir);
    const std::string path = name.rfind('/', 0) == 0 ? name : dir + "/" + name;
    if (kind == "write") {
      std::ofstream(path, std::ios::binary) << value;
    } else if (kind == "bytes") {
      std::string bytes;
      for (size_t i = 0; i + 1 < value.size(); i += 2)
        bytes += static_cast<char>(std::stoi(value.substr(i, 2), nullptr, 16));
      std::ofstream(path, std::ios::binary) << bytes;
    } else if (kind == "stdin") {
      ASSERT_TRUE(fs::is_regular_file(path)) << "stdin: no file " << path;
      stdin_file = path;
    } else if (kind == "mkdir") {
      fs::create_directories(path);
    } else if (kind == "mkfifo") {
      ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
    } else if (kind == "symlink") {
      fs::create_symlink(value, path);
    } else if (kind == "onnx") {
      std::ofstream(path, std::ios::binary) << fx::serialize(onnx_fixture(value));
    } else if (kind == "hetcim") {
      const CliRun r = run_hetcim(words(expand(arg, dir)), dir);
      ASSERT_EQ(r.code, 0) << "setup " << step << ":\n" << r.output;
    } else if (kind == "tamper") {
      const std::regex latency("\"latency\":[^,}]+");
      int n = 0;
      for (const auto& e : fs::directory_iterator(path)) {
        std::string s = slurp(e.path().string());
        std::ofstream(e.path(), std::ios::binary)
            << std::regex_replace(s, latency, "\"latency\":-5");
        ++n;
      }
      ASSERT_GT(n, 0) << "nothing to tamper in " << path;
    } else if (kind == "copy-first") {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(path)) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      ASSERT_GT(files.size(), 1u) << "nothing to copy over in " << path;
      const std::string first = slurp(files.front().string());
      for (const fs::path& p : files) std::ofstream(p, std::ios::binary) << first;
    } else if (kind == "set") {
      const size_t colon = value.find(':');
      ASSERT_NE(colon, std::string::npos) << step;
      const std::regex field("\"" + value.substr(0, colon) + "\":(\"[^\"]*\"|[^,}\\]]+)");
      int n = 0;
      for (const auto& e : fs::directory_iterator(path)) {
        const std::string s = slurp(e.path().string());
        std::ofstream(e.path(), std::ios::binary) << std::regex_replace(
            s, field, "\"" + value.substr(0, colon) + "\":" + value.substr(colon + 1));
        ++n;
      }
      ASSERT_GT(n, 0) << "nothing to edit in " << path;
    } else if (kind == "to-link" || kind == "to-fifo" || kind == "to-dir") {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(path)) files.push_back(e.path());
      ASSERT_GT(files.size(), 0u) << "nothing to replace in " << path;
      for (const fs::path& f : files) {
        fs::remove(f);
        if (kind == "to-link")
          fs::create_symlink(value, f);
        else if (kind == "to-fifo")
          ASSERT_EQ(::mkfifo(f.c_str(), 0644), 0);
        else
          fs::create_directories(f / "inside");
      }
    } else if (kind == "sparse") {
      std::ofstream(path, std::ios::binary).close();
      fs::resize_file(path, std::stoull(value));
    } else if (kind == "copy") {
      fs::copy_file(fs::path(HETCIM_HOSTILE_TABLE).parent_path().parent_path() / value, path,
                    fs::copy_options::overwrite_existing);
    } else if (kind == "replace") {
      const size_t arrow = value.find("=>");
      ASSERT_NE(arrow, std::string::npos) << step;
      const std::string from = value.substr(0, arrow), to = value.substr(arrow + 2);
      std::string s = slurp(path);
      ASSERT_NE(s.find(from), std::string::npos) << from << " not in " << path;
      for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size())
        s.replace(p, from.size(), to);
      std::ofstream(path, std::ios::binary) << s;
    } else if (kind == "garbage") {
      int n = 0;
      for (const auto& e : fs::directory_iterator(path)) {
        std::ofstream(e.path(), std::ios::binary) << "not json {";
        ++n;
      }
      ASSERT_GT(n, 0) << "nothing to overwrite in " << path;
    } else {
      FAIL() << "unknown setup step " << step;
    }
  }
}

void check_no_temporaries(const std::string& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    EXPECT_FALSE(name.rfind(".hetcim-", 0) == 0 || name.find(".tmp.") != std::string::npos ||
                 name.ends_with(".gp"))
        << "temporary file left: " << it->path();
  }
}

// gtest prints a failing row by its id and line, not as bytes.
void PrintTo(const Row& r, std::ostream* os) {
  *os << r.id << " (docs/hostile-inputs.md:" << r.line << ")";
}

class HostileInput : public testing::TestWithParam<Row> {};

TEST_P(HostileInput, GetsAClearAnswer) {
  const Row& row = GetParam();
  SCOPED_TRACE("docs/hostile-inputs.md line " + std::to_string(row.line) + ": " + row.what);
  const std::string dir =
      (fs::temp_directory_path() / ("hetcim_hostile_" + std::to_string(::getpid())) / row.id)
          .string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string stdin_file = "/dev/null";
  setup(row, dir, stdin_file);
  if (HasFatalFailure()) return;

  std::istringstream exit_cell(row.exit);
  int expected = -1;
  std::string sig_name, when;
  exit_cell >> expected >> sig_name >> when;
  const bool on_staged = when.rfind("staged:", 0) == 0;
  const double delay = when.empty() || on_staged ? 0 : std::stod(when);
  const std::string staged_in = on_staged ? expand(when.substr(7), dir) : "";
  const int sig = sig_name == "INT" ? SIGINT : sig_name == "TERM" ? SIGTERM : 0;
  ASSERT_TRUE(sig_name.empty() || sig != 0) << "unknown signal " << sig_name;

  // Contents of fixture files before the run, to see that a failed run clobbers nothing.
  std::vector<std::pair<std::string, std::string>> before;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) before.emplace_back(e.path().string(), slurp(e.path().string()));

  const CliRun r =
      run_hetcim(words(expand(row.command, dir)), dir, sig, delay, staged_in, stdin_file);
  EXPECT_GE(r.code, 0) << "hetcim died by signal " << -r.code << ":\n" << r.output;
  EXPECT_EQ(r.code, expected) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  if (!row.message.empty() && row.message != "-") {
    EXPECT_NE(r.output.find(expand(row.message, dir)), std::string::npos)
        << "expected \"" << row.message << "\" in:\n"
        << r.output;
  }
  check_no_temporaries(dir);
  if (r.code != 0) {
    for (const auto& [path, content] : before)
      EXPECT_TRUE(fs::exists(path) && slurp(path) == content) << "a failed run changed " << path;
  }

  for (const std::string& c : words(row.checks)) {
    if (c == "-") continue;
    if (c == "short") {
      EXPECT_LT(r.output.size(), 400u) << r.output;
      continue;
    }
    const size_t colon = c.find(':'), eq = c.find('=');
    if (c.rfind("out-lacks=", 0) == 0) {
      EXPECT_EQ(r.output.find(c.substr(10)), std::string::npos) << r.output;
      continue;
    }
    ASSERT_NE(colon, std::string::npos) << c;
    const std::string kind = c.substr(0, colon);
    const std::string p =
        expand(c.substr(colon + 1, eq == std::string::npos ? eq : eq - colon - 1), dir);
    const std::string text = eq == std::string::npos ? "" : c.substr(eq + 1);
    struct stat st {};
    const bool there = ::lstat(p.c_str(), &st) == 0;
    if (kind == "absent")
      EXPECT_FALSE(there) << p << " exists";
    else if (kind == "exists")
      EXPECT_TRUE(there) << p << " is missing";
    else if (kind == "chardev")
      EXPECT_TRUE(there && S_ISCHR(st.st_mode)) << p << " is no longer a character device";
    else if (kind == "fifo")
      EXPECT_TRUE(there && S_ISFIFO(st.st_mode)) << p << " is no longer a FIFO";
    else if (kind == "symlink")
      EXPECT_TRUE(there && S_ISLNK(st.st_mode)) << p << " is no longer a symbolic link";
    else if (kind == "contains")
      EXPECT_NE(slurp(p).find(text), std::string::npos) << p << " lacks " << text;
    else if (kind == "lacks")
      EXPECT_EQ(slurp(p).find(text), std::string::npos) << p << " contains " << text;
    else
      ADD_FAILURE() << "unknown check " << c;
  }
  if (!HasFailure()) fs::remove_all(dir);
}

const std::vector<Row>& rows() {
  static const std::vector<Row> r = load_rows();
  return r;
}

TEST(HostileInputTable, HasAtLeastSixtyRowsWithUniqueIds) {
  EXPECT_GE(rows().size(), 60u);
  std::set<std::string> ids;
  for (const Row& r : rows()) EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
}

INSTANTIATE_TEST_SUITE_P(Table, HostileInput, testing::ValuesIn(rows()),
                         [](const testing::TestParamInfo<Row>& i) {
                           std::string n = i.param.id;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
