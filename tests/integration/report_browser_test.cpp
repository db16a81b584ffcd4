// The DSE report as a reader sees it: rendered by headless Chromium (Debian's chromium package),
// every figure must be in the DOM as an inline SVG with plotted content, and the table must list
// every grid point.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string capture(const std::string& cmd, int& status) {
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int raw = ::pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

TEST(DseReport, RendersInHeadlessChromiumWithEveryFigure) {
  const fs::path out =
      fs::temp_directory_path() / ("hetcim_dse_report_" + std::to_string(::getpid()));
  fs::remove_all(out);
  int status = 0;
  const std::string log = capture(std::string(HETCIM_BIN) +
                                      " dse --models resnet18,mobilenetv2 --crossbars 25,100 "
                                      "--t-mvm 50ns,1000ns --hosts arm,x86 --out " +
                                      out.string() + " 2>&1",
                                  status);
  ASSERT_EQ(status, 0) << log;
  const std::string dom = capture(
      "chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir=" +
          (out / "chrome-profile").string() + " --dump-dom file://" +
          (out / "report.html").string() + " 2>/dev/null",
      status);
  ASSERT_EQ(status, 0);
  // Fig. 3 per model (2), Fig. 4, the energy figure, Fig. 5 per model (2), the solver figure: 7.
  EXPECT_EQ(count(dom, "<figure class=\"figure\""), 7u) << dom.substr(0, 2000);
  for (const char* id : {"fig3_resnet18", "fig3_mobilenetv2", "fig4_models", "energy_models",
                         "fig5_resnet18", "fig5_mobilenetv2", "table1_solver"}) {
    const size_t at = dom.find(std::string("id=\"") + id + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    const size_t svg = dom.find("<svg", at);
    ASSERT_NE(svg, std::string::npos) << id;
    // gnuplot draws data as paths: a figure without any is empty.
    EXPECT_NE(dom.find("<path", svg), std::string::npos) << id;
  }
  // 2 models x 2 hosts x 2 budgets x 2 latencies, one table row each (plus the header row).
  EXPECT_EQ(count(dom, "<tr>"), 17u);
  EXPECT_TRUE(fs::exists(out / "figures" / "fig4_models.png"));
  EXPECT_GT(fs::file_size(out / "figures" / "fig4_models.png"), 5000u);
  fs::remove_all(out);
}

}  // namespace
