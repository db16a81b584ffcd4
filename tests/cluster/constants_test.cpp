// The table of constants (cluster/constants.h): every row in src/cluster/README.md with the same
// source, the calibrated one named so, and a configuration's own values marked as given.
#include "cluster/constants.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/cluster_tables.h"

namespace hetcim::cluster {
namespace {

TEST(Constants, EveryRowIsInTheReadmeWithTheSameSource) {
  std::ifstream in(std::string(HETCIM_SOURCE_DIR) + "/src/cluster/README.md");
  ASSERT_TRUE(in) << "src/cluster/README.md";
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::vector<ConstantRow> rows = constant_table(cluster_preset("seed001"));
  EXPECT_GE(rows.size(), 35u);
  for (const ConstantRow& r : rows) {
    const std::string key = "| `" + r.field + "` |";
    const std::string* found = nullptr;
    for (const std::string& l : lines)  // the first such row: the constants table
      if (!found && l.rfind(key, 0) == 0) found = &l;
    ASSERT_NE(found, nullptr) << "README lacks the row " << key;
    EXPECT_NE(found->find(std::string("| ") + constant_source_name(r.source) + " |"),
              std::string::npos)
        << *found;
    EXPECT_TRUE(r.as_preset) << r.field;
  }
}

TEST(Constants, CalibratedAndGivenValuesAreNamed) {
  ClusterConfig c = cluster_preset("seed001");
  c.ima.job_overhead_cycles = 31;
  for (const ConstantRow& r : constant_table(c)) {
    if (r.field == "cores.depthwise_mac_per_cycle") {
      EXPECT_EQ(r.source, ConstantSource::Calibrated);
    }
    if (r.field == "ima.job_overhead_cycles") {
      EXPECT_FALSE(r.as_preset);
      EXPECT_EQ(r.value, "31");
    }
  }
  EXPECT_NE(report::constant_table_text(c).find(
                "ima.job_overhead_cycles          31                     given"),
            std::string::npos)
      << report::constant_table_text(c);
}

}  // namespace
}  // namespace hetcim::cluster
