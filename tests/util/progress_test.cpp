#include "util/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace hetcim {
namespace {

std::string slurp(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

TEST(Progress, LineStatesDoneTotalAndALinearEstimate) {
  // 12 of 48 points in 6 s: 36 left at 0.5 s each = 18 s (by hand).
  EXPECT_EQ(Progress::line("DSE", "points", 12, 48, 6.0),
            "DSE: 12/48 points (25 %), 6 s elapsed, about 18 s left");
  // Done: no estimate; unknown total: no percentage either.
  EXPECT_EQ(Progress::line("DSE", "points", 48, 48, 24.0),
            "DSE: 48/48 points (100 %), 24 s elapsed");
  EXPECT_EQ(Progress::line("x", "runs", 3, 0, 1.0), "x: 3 runs, 1 s elapsed");
  // Minutes past 90 s: 1 of 4 in 60 s leaves 180 s = 3 min.
  EXPECT_EQ(Progress::line("t", "epochs", 1, 4, 60.0),
            "t: 1/4 epochs (25 %), 60 s elapsed, about 3 min left");
  EXPECT_EQ(ProgressTicker::line("MILP", 12.0, 600.0),
            "MILP: 12 s elapsed, at most 10 min (time limit)");
}

TEST(Progress, WritesFullLinesToALogAndNothingWhenDisabled) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  {
    Progress p("work", "steps", 2, /*enabled=*/true, log);
    p.update(1);  // throttled in a log (first line after 10 s) ...
    p.update(2);  // ... but the last step always prints
  }
  const std::string s = slurp(log);
  EXPECT_EQ(s.rfind("work: 2/2 steps (100 %), ", 0), 0u) << s;
  EXPECT_EQ(s.back(), '\n');
  EXPECT_EQ(s.find('\r'), std::string::npos) << "no carriage returns in a log";
  std::fclose(log);

  std::FILE* quiet = std::tmpfile();
  {
    Progress p("work", "steps", 2, /*enabled=*/false, quiet);
    p.update(1);
    p.update(2);
    ProgressTicker t("solver", 10, /*enabled=*/false, quiet);
  }
  EXPECT_EQ(slurp(quiet), "");
  std::fclose(quiet);
}

}  // namespace
}  // namespace hetcim
