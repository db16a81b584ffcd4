// OutputSet and the output-path checks of util/files.h on real files in a scratch directory.
#include "util/output_set.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/files.h"

namespace hetcim {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_output_set_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t entries(const fs::path& d) {
  size_t n = 0;
  for (auto it = fs::directory_iterator(d); it != fs::directory_iterator(); ++it) ++n;
  return n;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputSet, NothingAppearsBeforeCommitAndEverythingAfter) {
  const fs::path d = scratch("commit");
  OutputSet out;
  out.add((d / "a.txt").string(), "alpha");
  out.add((d / "b.txt").string(), "beta");
  EXPECT_FALSE(fs::exists(d / "a.txt"));
  EXPECT_EQ(entries(d), 2u);  // the two staged temporaries
  out.commit();
  EXPECT_EQ(slurp(d / "a.txt"), "alpha");
  EXPECT_EQ(slurp(d / "b.txt"), "beta");
  EXPECT_EQ(entries(d), 2u);  // no temporaries left
}

TEST(OutputSet, ADiscardedSetLeavesNoFileAndNoDirectoryItCreated) {
  const fs::path d = scratch("discard");
  {
    OutputSet out;
    out.make_directory((d / "new" / "deeper").string());
    out.add((d / "new" / "deeper" / "x.txt").string(), "x");
    out.add((d / "keep.txt").string(), "y");
  }
  EXPECT_EQ(entries(d), 0u);
}

TEST(OutputSet, ASecondBadTargetStopsTheFirst) {
  const fs::path d = scratch("second");
  const std::string msg = error_of([&] {
    OutputSet out;
    out.add((d / "ok.json").string(), "{}");
    out.add("/proc/hetcim-no.svg", "<svg/>");
    out.commit();
  });
  EXPECT_NE(msg.find("'/proc/hetcim-no.svg'"), std::string::npos) << msg;
  EXPECT_EQ(entries(d), 0u);
}

TEST(OutputSet, ATargetNamedTwiceIsAnError) {
  const fs::path d = scratch("twice");
  OutputSet out;
  out.add((d / "a").string(), "1");
  EXPECT_NE(error_of([&] { out.add((d / "a").string(), "2"); }).find("named by two outputs"),
            std::string::npos);
}

TEST(OutputSet, ASymlinkIsWrittenThroughAndStays) {
  const fs::path d = scratch("link");
  std::ofstream(d / "target.txt") << "old";
  fs::create_symlink(d / "target.txt", d / "link.txt");
  write_file_atomically((d / "link.txt").string(), "new");
  EXPECT_TRUE(fs::is_symlink(d / "link.txt"));
  EXPECT_EQ(slurp(d / "target.txt"), "new");
}

TEST(OutputPath, SpecialFilesAreRefusedByKind) {
  const fs::path d = scratch("special");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0644), 0);
  EXPECT_NE(error_of([&] { (void)resolve_output_path((d / "fifo").string()); }).find("a FIFO"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)resolve_output_path("/dev/null"); }).find("a character device"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)resolve_output_path(d.string()); }).find("is a directory"),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat((d / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputPath, ALongPathGetsAShortMessage) {
  const std::string path = "/tmp/" + std::string(5000, 'y') + "/x.json";
  const std::string msg = error_of([&] { (void)resolve_output_path(path); });
  EXPECT_NE(msg.find("too long"), std::string::npos);
  EXPECT_LT(msg.size(), 300u);
}

TEST(InputFile, DirectoriesAndDevicesAreNamed) {
  const fs::path d = scratch("input");
  EXPECT_NE(error_of([&] {
              (void)read_input_file(d.string(), "hardware description");
            }).find("is a directory; expected a hardware description file"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              (void)read_input_file("/dev/zero", "host profile");
            }).find("a character device"),
            std::string::npos);
  std::ofstream(d / "big") << std::string(100, 'x');
  EXPECT_NE(error_of([&] {
              (void)read_input_file((d / "big").string(), "profile", 99);
            }).find("100 bytes is more than the 99 bytes"),
            std::string::npos);
  EXPECT_EQ(read_input_file((d / "big").string(), "profile", 100), std::string(100, 'x'));
}

}  // namespace
}  // namespace hetcim
