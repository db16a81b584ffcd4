// `hetcim reproduce all --quick` as a reader sees it: each report.html rendered by headless
// Chromium (Debian's chromium package) must load every figure image, every table must carry a
// paper column, every figure caption must name its data source, the index page must link every
// report and figure and load every thumbnail, and a full-page screenshot of each page is kept as a
// test artifact (HETCIM_ARTIFACT_DIR).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
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

std::string chromium(const fs::path& profile) {
  return "chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking --disable-component-update --disable-sync "
         "--allow-file-access-from-files --virtual-time-budget=5000 --user-data-dir=" +
         profile.string();
}

class ReproduceReport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = fs::temp_directory_path() / ("hetcim_reproduce_" + std::to_string(::getpid()));
    fs::remove_all(out_);
    log_ = capture(std::string(HETCIM_BIN) + " reproduce all --quick --study " + HETCIM_SOURCE_DIR +
                       "/examples/seed002-study --out " + out_.string() + " 2>&1",
                   status_);
  }
  static void TearDownTestSuite() { fs::remove_all(out_); }

  void check_report(const std::string& seed, size_t min_figures) {
    ASSERT_EQ(status_, 0) << log_;
    const fs::path html = out_ / seed / "report.html";
    ASSERT_TRUE(fs::exists(html)) << log_;
    int status = 0;
    const std::string dom = capture(chromium(out_ / ("profile-" + seed)) + " --dump-dom file://" +
                                        html.string() + " 2>/dev/null",
                                    status);
    ASSERT_EQ(status, 0);
    // Every figure is an <img> that loaded (the page marks load and error on each image).
    const size_t images = count(dom, "<img ");
    EXPECT_GE(images, min_figures) << seed;
    EXPECT_EQ(count(dom, "data-loaded=\"1\""), images) << seed << ": an image did not load";
    EXPECT_EQ(count(dom, "data-failed"), 0u) << seed;
    // Every table has a paper column.
    const std::regex table_re("<table[\\s\\S]*?</table>");
    size_t tables = 0;
    for (auto it = std::sregex_iterator(dom.begin(), dom.end(), table_re);
         it != std::sregex_iterator(); ++it) {
      ++tables;
      EXPECT_NE(it->str().find(">paper"), std::string::npos)
          << seed << ": a table without a paper column: " << it->str().substr(0, 300);
    }
    EXPECT_GE(tables, 2u) << seed;
    // Every caption names its data source; a modelled host or model says so.
    const std::regex cap_re("<figcaption>([\\s\\S]*?)</figcaption>");
    for (auto it = std::sregex_iterator(dom.begin(), dom.end(), cap_re);
         it != std::sregex_iterator(); ++it) {
      const std::string cap = (*it)[1];
      EXPECT_TRUE(cap.find("Data:") != std::string::npos ||
                  cap.find("Modelled") != std::string::npos ||
                  cap.find("modelled") != std::string::npos)
          << seed << ": caption without a data source: " << cap.substr(0, 200);
    }
    EXPECT_NE(dom.find("class=\"provenance\""), std::string::npos) << seed;
    // The JSON twin lists the same figures with provenance.
    std::ifstream in(out_ / seed / "reproduce.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["figures"].size(), images) << seed;
    EXPECT_FALSE(j["provenance"]["command_line"].get<std::string>().empty());
    for (const auto& f : j["figures"])
      for (const auto& file : f["files"])
        EXPECT_GT(fs::file_size(out_ / seed / file.get<std::string>()), 1000u) << file;
    // A screenshot of the whole page, kept for a person to look at.
    fs::create_directories(HETCIM_ARTIFACT_DIR);
    const fs::path shot = fs::path(HETCIM_ARTIFACT_DIR) / ("reproduce_" + seed + ".png");
    fs::remove(shot);
    (void)capture(chromium(out_ / ("profile-shot-" + seed)) +
                      " --hide-scrollbars --window-size=1200,6000 --screenshot=" + shot.string() +
                      " file://" + html.string() + " 2>/dev/null",
                  status);
    ASSERT_EQ(status, 0);
    EXPECT_GT(fs::file_size(shot), 20000u);
  }

  static inline fs::path out_;
  static inline std::string log_;
  static inline int status_ = -1;
};

// `reproduce all` writes index.html: in the browser every thumbnail loads, and the page links each
// paper's report and each figure of each report.json at its place in the report.
TEST_F(ReproduceReport, IndexLinksEveryReportAndLoadsEveryThumbnail) {
  ASSERT_EQ(status_, 0) << log_;
  const fs::path html = out_ / "index.html";
  ASSERT_TRUE(fs::exists(html)) << log_;
  int status = 0;
  const std::string dom = capture(
      chromium(out_ / "profile-index") + " --dump-dom file://" + html.string() + " 2>/dev/null",
      status);
  ASSERT_EQ(status, 0);
  size_t figures = 0;
  for (const std::string seed : {"seed000", "seed001", "seed002"}) {
    EXPECT_NE(dom.find("href=\"" + seed + "/report.html\""), std::string::npos) << seed;
    std::ifstream in(out_ / seed / "reproduce.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& f : j["figures"]) {
      ++figures;
      const std::string name = f["name"];
      EXPECT_NE(dom.find("href=\"" + seed + "/report.html#" + name + "\""), std::string::npos)
          << name;
      EXPECT_NE(dom.find("src=\"" + seed + "/figures/" + name + ".svg\""), std::string::npos)
          << name;
    }
  }
  EXPECT_EQ(count(dom, "<img "), figures);
  EXPECT_EQ(count(dom, "data-loaded=\"1\""), figures) << "a thumbnail did not load";
  fs::create_directories(HETCIM_ARTIFACT_DIR);
  const fs::path shot = fs::path(HETCIM_ARTIFACT_DIR) / "reproduce_index.png";
  fs::remove(shot);
  (void)capture(chromium(out_ / "profile-shot-index") +
                    " --hide-scrollbars --window-size=1200,3000 --screenshot=" + shot.string() +
                    " file://" + html.string() + " 2>/dev/null",
                status);
  ASSERT_EQ(status, 0);
  EXPECT_GT(fs::file_size(shot), 20000u);
}

TEST_F(ReproduceReport, Seed000RendersWithEveryFigureAndPaperColumn) {
  check_report("seed000", 4);
}

TEST_F(ReproduceReport, Seed001RendersWithEveryFigureAndPaperColumn) {
  check_report("seed001", 5);
}

TEST_F(ReproduceReport, Seed002RendersWithEveryFigureAndPaperColumn) {
  check_report("seed002", 4);  // Fig. 2 a-c from the example study, Fig. 2d
}

}  // namespace
