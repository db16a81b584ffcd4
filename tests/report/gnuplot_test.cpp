// Text reaches gnuplot only through gnuplot_text (issue 35): a control character is a visible
// escape, never a line break of the script. Checked on the exact encodings and on real gnuplot
// runs: first that the attack is real (a raw newline in a title runs system()), then that every
// text field of every chart kind, the figure's title, name and directory carrying that attack
// draw the figure and run nothing.
#include "report/gnuplot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/drift.h"
#include "report/figure_style.h"
#include "util/output_set.h"
#include "util/process.h"

namespace {

namespace fs = std::filesystem;
using namespace hetcim::report;
using namespace hetcim::results;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `f` with the working directory `d` (gnuplot's system() runs there).
template <typename F>
void in_directory(const fs::path& d, F f) {
  const fs::path old = fs::current_path();
  fs::current_path(d);
  f();
  fs::current_path(old);
}

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_gnuplot_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A name or content of a hostile file: ends the gnuplot command, runs one, comments the rest;
// with both quotes, a backquote command and a macro besides.
const std::string kAttack = "A0\nsystem(\"touch PWNED\")\n#'\"`touch PWNED2` @m\r\x01";

TEST(GnuplotText, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(gnuplot_text("a\nb\rc\td\x01\x7f"
                         "e"),
            "a\\nb\\rc\\td\\x01\\x7fe");
  EXPECT_EQ(gnuplot_text("ok 'x' \"y\" `z` @m é"), "ok 'x' \"y\" `z` @m é");
  EXPECT_EQ(gnuplot_string("it's\nx"), "'it''s\\nx'");
  EXPECT_EQ(gnuplot_datum("say \"hi\"\n"), "\"say 'hi'\\n\"");
  for (const std::string& s : {gnuplot_string(kAttack), gnuplot_datum(kAttack)})
    for (const char c : s) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << s;
}

TEST(GnuplotText, ARawNewlineInATitleWouldRunACommand) {
  // The oracle that the attack is real: without the encoding, gnuplot runs system().
  const fs::path d = scratch("raw");
  in_directory(d, [] {
    const hetcim::ProcessResult r =
        hetcim::run_process({"gnuplot"}, "set terminal svg\nset output '/dev/null'\nset title '" +
                                             kAttack + "'\nplot x\n");
    ASSERT_TRUE(r.started) << "gnuplot is not installed";
  });
  EXPECT_TRUE(fs::exists(d / "PWNED")) << "gnuplot did not run the injected line: the test below "
                                          "would prove nothing";
}

Chart hostile_chart(int kind) {
  Chart c;
  c.title = kAttack;
  c.footnote = kAttack + " " + kAttack;
  Panel p;
  p.title = kAttack;
  p.xlabel = kAttack;
  p.ylabel = kAttack;
  p.hlines = {RefLine{kAttack, 0.5, 5}};
  if (kind == 0) {
    p.chart = Bars{{kAttack, "b"}, {{kAttack, {1, 2}, {1.5, 2.5}}}, "%.1f"};
  } else if (kind == 1) {
    StackSegment s{kAttack, "", {1, 2}, {kAttack, kAttack}};
    p.chart = Stacks{{kAttack, "b"}, {kAttack}, {0, 0}, {s}, {{kAttack, {1.5, 2.5}, true}}};
    p.hlines.clear();
  } else if (kind == 2) {
    p.chart = Lines{{{kAttack, {1, 2, 3}, {1, 4, 9}}}, false, false};
  } else {
    Gantt g;
    g.lanes = {kAttack, "bus"};
    g.kinds = {kAttack};
    g.kind_colours = {"#1F4E79"};
    g.bars = {{0, 0, 10, 0, kAttack}, {1, 2, 3, 0, kAttack}};
    p.chart = g;
    p.hlines.clear();
  }
  c.panels.push_back(p);
  return c;
}

TEST(GnuplotText, HostileTextInEveryFieldDrawsAndRunsNothing) {
  const fs::path d = scratch("hostile");
  const std::string dir = (d / ("figs\nsystem(\"touch PWNED3\")\n'")).string();
  in_directory(d, [&] {
    hetcim::OutputSet out;
    out.make_directory(dir);
    for (int kind = 0; kind < 4; ++kind) {
      const Figure f{"fig" + std::to_string(kind) + "\n" + kAttack, kAttack, kAttack};
      plot_chart(out, dir, f, hostile_chart(kind));
    }
    out.commit();
  });
  for (const char* p : {"PWNED", "PWNED2", "PWNED3"}) EXPECT_FALSE(fs::exists(d / p)) << p;
  for (int kind = 0; kind < 4; ++kind) {
    const fs::path svg = fs::path(dir) / ("fig" + std::to_string(kind) + "\n" + kAttack + ".svg");
    ASSERT_TRUE(fs::exists(svg)) << kind;
    // The text is drawn, its line breaks shown as \n.
    EXPECT_NE(slurp(svg).find("A0\\nsystem("), std::string::npos) << kind;
  }
}

TEST(GnuplotText, AnalogDriftWithAHostilePolicyRunsNothing) {
  // Issue 35's case: `analog drift --policy` with a policy whose chip name is
  // "A0\nsystem(\"id>PWNED\")\n#" ran `id`. The figure of that run, from the report it renders.
  const fs::path d = scratch("drift");
  DriftReport r;
  r.chip = "chips.yaml:A0\nsystem(\"id>PWNED\")\n#";
  r.nu = 0.05;
  r.nu_sd = 0.01;
  r.dataset = kAttack;
  r.policy_file = "policy\nsystem(\"touch PWNED2\")\n#.json";
  r.certificate_bound = 0.1;
  r.risk_target = 0.05;
  for (const auto& [label, s] : {std::pair<std::string, double>{"t0", 0}, {kAttack, 3600}}) {
    DriftPoint p;
    p.label = label;
    p.seconds = s;
    p.accuracy = 0.9;
    p.accuracy_compensated = 0.91;
    p.policy = DriftPolicyPoint{0.8, 0.02, std::nullopt};
    p.policy_compensated = DriftPolicyPoint{0.82, 0.02, std::nullopt};
    r.points.push_back(p);
  }
  hetcim::Provenance prov;
  prov.command_line = kAttack;
  prov.set("chip", r.chip);
  in_directory(d, [&] {
    hetcim::OutputSet out;
    out.make_directory("o/");
    (void)write_drift_figure(out, "o/", "drift", r, prov);
    out.commit();
  });
  EXPECT_FALSE(fs::exists(d / "PWNED"));
  EXPECT_FALSE(fs::exists(d / "PWNED2"));
  EXPECT_TRUE(fs::exists(d / "o" / "drift.svg"));
}

TEST(FigureStyle, ALineChartOfOnePointDraws) {
  // A latency-energy front of one point (bottleneck's): gnuplot refused the empty x range.
  const fs::path d = scratch("one_point");
  hetcim::OutputSet out;
  Chart c;
  c.panels.push_back({"", "latency (ms)", "energy (mJ)", kNoValue, kNoValue,
                      Lines{{{"front", {4.97}, {1.5}}}, false, false}});
  plot_chart(out, d.string(), Figure{"front", "one point", ""}, c);
  out.commit();
  EXPECT_NE(slurp(d / "front.svg").find("<svg"), std::string::npos);
}

}  // namespace
