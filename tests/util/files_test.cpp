// util/files.h and the parts of OutputSet that guard against hostile files (issue 35): the bounded
// regular-file reader, cache entries that are links, FIFOs or directories, names hetcim makes
// itself, outputs that would replace an input, path joining, and temporaries of killed writers.
#include "util/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/output_set.h"
#include "util/shipped_data.h"

namespace hetcim {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_files_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void put(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

size_t temporaries(const fs::path& d) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().rfind(".hetcim-", 0) == 0) ++n;
  return n;
}

TEST(JoinPath, OneSlashBetweenDirectoryAndName) {
  EXPECT_EQ(join_path("study/", "fig2a.svg"), "study/fig2a.svg");
  EXPECT_EQ(join_path("study//", "fig2a.svg"), "study/fig2a.svg");
  EXPECT_EQ(join_path("study", "fig2a.svg"), "study/fig2a.svg");
  EXPECT_EQ(join_path("/", "x"), "/x");
  EXPECT_EQ(join_path("", "x"), "x");
  EXPECT_EQ(collapse_slashes("study//fig2a.svg"), "study/fig2a.svg");
  EXPECT_EQ(collapse_slashes("//a///b/"), "/a/b/");
}

TEST(JoinPath, AStagedFileIsFoundWhateverItsSlashes) {
  // Issue 36: `analog study --out study/` staged study/fig.svg and looked up study//fig.svg.
  const fs::path d = scratch("slashes");
  OutputSet out;
  out.make_directory(d.string() + "/");
  const std::string staged = out.stage(d.string() + "//fig.svg");
  EXPECT_EQ(out.staged_file(d.string() + "/fig.svg"), staged);
  EXPECT_EQ(out.targets().front(), d.string() + "/fig.svg");
}

// Issue 36: a caption cites a shipped file by the repository's path, not this machine's.
TEST(ShippedData, CitedByTheRepositorysPath) {
  EXPECT_EQ(cited_data_path(shipped_data_path("paper/seed000.yaml")),
            "hetcim's data/paper/seed000.yaml");
  EXPECT_EQ(cited_data_path(shipped_data_path("paper") + "/seed002.yaml"),
            "hetcim's data/paper/seed002.yaml");
  EXPECT_EQ(cited_data_path(shipped_data_path("chips.yaml")), "hetcim's data/chips.yaml");
  // Any other path as given: the user's own, relative or absolute, or one leaving the data tree.
  EXPECT_EQ(cited_data_path("mine/seed000.yaml"), "mine/seed000.yaml");
  EXPECT_EQ(cited_data_path("/etc/hosts"), "/etc/hosts");
  const std::string outside = shipped_data_path("paper") + "/../../README.md";
  EXPECT_EQ(cited_data_path(outside), outside);
  EXPECT_EQ(cited_data_path(""), "");
}

TEST(ReadInputFile, RefusesAFifoWithoutWaitingForAWriter) {
  const fs::path d = scratch("fifo");
  ASSERT_EQ(::mkfifo((d / "p").c_str(), 0644), 0);
  EXPECT_NE(error_of([&] {
              (void)read_input_file((d / "p").string(), "plan");
            }).find("is a FIFO (named pipe); expected a plan file"),
            std::string::npos);
}

TEST(ReadInputFile, BoundsTheSizeBeforeReading) {
  const fs::path d = scratch("bound");
  put(d / "f", std::string(100, 'x'));
  EXPECT_NE(error_of([&] {
              (void)read_input_file((d / "f").string(), "policy", 99);
            }).find("100 bytes is more than the 99 bytes a policy may have"),
            std::string::npos);
  EXPECT_EQ(read_input_file((d / "f").string(), "policy", 100), std::string(100, 'x'));
}

TEST(ReadInputFile, ChecksTheMagicBeforeTheRest) {
  // A sparse file of 3 GB: refused after its first 6 bytes, with the bound above its size. Read
  // whole it would need 3 GB of memory, which the test's memory limit need not allow.
  const fs::path d = scratch("magic");
  {
    const int fd = ::open((d / "big.npy").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, int64_t{3} << 30), 0);
    ::close(fd);
  }
  InputCheck check;
  check.max_bytes = int64_t{4} << 30;
  check.magic = "\x93NUMPY";
  check.magic_name = "the \\x93NUMPY magic string";
  EXPECT_NE(error_of([&] {
              (void)read_input_file((d / "big.npy").string(), ".npy array", check);
            }).find("not a .npy array file (it does not start with the \\x93NUMPY magic string)"),
            std::string::npos);
  put(d / "short.npy", "\x93NU");
  EXPECT_NE(error_of([&] {
              (void)read_input_file((d / "short.npy").string(), ".npy", check);
            }).find("does not start with"),
            std::string::npos);
  put(d / "ok.npy", "\x93NUMPYrest");
  EXPECT_EQ(read_input_file((d / "ok.npy").string(), ".npy", check), "\x93NUMPYrest");
}

TEST(CacheFile, ALinkOrFifoIsUnusableAndReplacedNeverFollowed) {
  const fs::path d = scratch("cache");
  put(d / "victim.txt", "precious");
  fs::create_symlink(d / "victim.txt", d / "k1.json");
  ASSERT_EQ(::mkfifo((d / "k2.json").c_str(), 0644), 0);
  const CacheFile link = read_cache_file((d / "k1.json").string(), "cache entry");
  EXPECT_TRUE(link.found);
  EXPECT_FALSE(link.usable);
  EXPECT_NE(link.problem.find("symbolic link"), std::string::npos);
  const CacheFile fifo = read_cache_file((d / "k2.json").string(), "cache entry");
  EXPECT_TRUE(fifo.found && !fifo.usable);
  EXPECT_NE(fifo.problem.find("FIFO"), std::string::npos);
  EXPECT_FALSE(read_cache_file((d / "none.json").string(), "cache entry").found);

  write_cache_file((d / "k1.json").string(), "{\"entry\": 1}");
  write_cache_file((d / "k2.json").string(), "{\"entry\": 2}");
  EXPECT_EQ(slurp(d / "victim.txt"), "precious");  // the link's target untouched
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d / "k1.json")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d / "k2.json")));
  const CacheFile back = read_cache_file((d / "k1.json").string(), "cache entry");
  EXPECT_TRUE(back.usable);
  EXPECT_EQ(back.text, "{\"entry\": 1}");
  EXPECT_EQ(temporaries(d), 0u);
}

TEST(CacheFile, ADirectoryIsAClearError) {
  const fs::path d = scratch("cache_dir");
  fs::create_directories(d / "k.json" / "inside");
  EXPECT_NE(error_of([&] {
              (void)read_cache_file((d / "k.json").string(), "DSE cache entry");
            }).find("is a directory, which hetcim does not delete to replace it"),
            std::string::npos);
  EXPECT_NE(error_of([&] { write_cache_file((d / "k.json").string(), "x"); }).find("directory"),
            std::string::npos);
  EXPECT_TRUE(fs::is_directory(d / "k.json" / "inside"));
}

TEST(InputTracking, AnOutputNeverReplacesAFileTheCommandRead) {
  track_command_inputs();
  const fs::path d = scratch("inputs");
  put(d / "plan.json", "{}");
  fs::create_symlink(d / "plan.json", d / "alias.json");
  (void)read_input_file((d / "plan.json").string(), "plan");
  EXPECT_NE(input_named_by((d / "alias.json").string()).find("the plan"), std::string::npos);
  for (const char* name : {"plan.json", "alias.json", "./plan.json"}) {
    const std::string target = (d / name).string();
    OutputSet out;
    EXPECT_NE(error_of([&] {
                out.add(target, "overwritten");
              }).find("that this command reads; an output never replaces an input"),
              std::string::npos)
        << name;
    EXPECT_NE(error_of([&] { (void)out.stage(target); }).find("an output never replaces"),
              std::string::npos)
        << name;
  }
  EXPECT_EQ(slurp(d / "plan.json"), "{}");
  EXPECT_EQ(temporaries(d), 0u);
  // Another file is written, and an input noted without being read (a streamed reader) counts.
  write_file_atomically((d / "out.json").string(), "ok");
  EXPECT_EQ(slurp(d / "out.json"), "ok");
  put(d / "model.onnx", "m");
  note_input((d / "model.onnx").string(), "ONNX model");
  EXPECT_NE(error_of([&] {
              write_file_atomically((d / "model.onnx").string(), "x");
            }).find("the ONNX model"),
            std::string::npos);
  // A file read back that the command made itself is no input.
  InputCheck own;
  own.is_input = false;
  (void)read_input_file((d / "out.json").string(), "staged figure", own);
  write_file_atomically((d / "out.json").string(), "again");
  EXPECT_EQ(slurp(d / "out.json"), "again");
}

// Stages a file in `dir` and ends by SIGKILL (nothing can remove its temporary), or, with
// `hold_fd` >= 0, writes one byte to it, waits for a byte on `wait_fd` and discards its set.
pid_t writer(const fs::path& dir, int hold_fd, int wait_fd) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  {
    OutputSet out;
    out.add((dir / "out.bin").string(), "partial");
    if (hold_fd < 0) ::kill(::getpid(), SIGKILL);
    const char b = 1;
    (void)!::write(hold_fd, &b, 1);
    char c;
    (void)!::read(wait_fd, &c, 1);
  }  // discarded: its temporary removed
  ::_exit(0);
}

TEST(StaleTemporaries, ThoseOfAKilledWriterGoThoseOfALiveOneStay) {
  const fs::path dead = scratch("stale_dead"), live = scratch("stale_live");
  // A writer killed while staging leaves its temporary (the export of issue 35).
  int status = 0;
  const pid_t k = writer(dead, -1, -1);
  ASSERT_EQ(::waitpid(k, &status, 0), k);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_EQ(temporaries(dead), 1u);
  // A live writer holds its temporary.
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  const pid_t w = writer(live, ready[1], go[0]);
  char b;
  ASSERT_EQ(::read(ready[0], &b, 1), 1);
  ASSERT_EQ(temporaries(live), 1u);

  write_file_atomically((dead / "next.bin").string(), "x");  // the next run in that directory
  EXPECT_EQ(temporaries(dead), 0u) << "the killed writer's temporary is still there";
  write_file_atomically((live / "next.bin").string(), "x");
  EXPECT_EQ(temporaries(live), 1u) << "a live writer's temporary was removed";

  ASSERT_EQ(::write(go[1], &b, 1), 1);
  ASSERT_EQ(::waitpid(w, &status, 0), w);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(temporaries(live), 0u);  // its set, discarded at exit, removed it
  for (const int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
}

}  // namespace
}  // namespace hetcim
