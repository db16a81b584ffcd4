// External programs without a shell: arguments are data, stdin is delivered, exit codes kept.
#include "util/process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace hetcim {
namespace {

TEST(Process, ArgumentsAreNeverInterpretedByAShell) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("hetcim_process_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  const std::string evil = "'; touch " + (d / "PWNED").string() + "; echo '";
  const ProcessResult r = run_process({"printf", "%s", evil}, "");
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, evil);
  EXPECT_FALSE(std::filesystem::exists(d / "PWNED"));
  std::filesystem::remove_all(d);
}

TEST(Process, StdinIsDeliveredWhole) {
  const std::string big(1 << 20, 'a');  // larger than a pipe buffer
  const ProcessResult r = run_process({"wc", "-c"}, big);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(std::stol(r.output), 1 << 20);
}

TEST(Process, ExitCodesAndMissingProgramsAreReported) {
  EXPECT_EQ(run_process({"sh", "-c", "exit 7"}, "").exit_code, 7);
  EXPECT_FALSE(run_process({"hetcim-no-such-program"}, "").started);
}

TEST(Process, AChildThatIgnoresItsStdinDoesNotKillUs) {
  const ProcessResult r = run_process({"true"}, std::string(1 << 20, 'x'));
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0);
}

}  // namespace
}  // namespace hetcim
