#include "util/provenance.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "hetcim/version.h"

namespace hetcim {
namespace {

TEST(Provenance, SourceDateEpochFixesTheDate) {
  ::setenv("SOURCE_DATE_EPOCH", "86400", 1);  // one day after the epoch, by hand
  const char* argv[] = {"hetcim", "partition", "my model.onnx"};
  Provenance p = make_provenance(3, argv);
  ::unsetenv("SOURCE_DATE_EPOCH");
  EXPECT_EQ(p.date_utc, "1970-01-02T00:00:00Z");
  EXPECT_EQ(p.command_line, "hetcim partition 'my model.onnx'");
  EXPECT_EQ(p.version, HETCIM_VERSION);
  EXPECT_EQ(p.commit, HETCIM_GIT_COMMIT);
}

TEST(Provenance, VersionMatchesTheProjectVersion) {
  EXPECT_EQ(std::string(HETCIM_VERSION), std::string(HETCIM_PROJECT_VERSION));
  EXPECT_NE(version_string().find(HETCIM_GIT_COMMIT), std::string::npos);
}

TEST(Provenance, SetReplacesAndKeepsOrder) {
  Provenance p;
  p.set("host source", "modelled by seed000-arm");
  p.set("solver", "exact");
  p.set("host source", "measured on this CPU");
  ASSERT_EQ(p.facts.size(), 2u);
  EXPECT_EQ(p.facts[0].second, "measured on this CPU");
  ASSERT_NE(p.find("solver"), nullptr);
  EXPECT_EQ(*p.find("solver"), "exact");
  EXPECT_EQ(p.find("seed"), nullptr);
}

}  // namespace
}  // namespace hetcim
