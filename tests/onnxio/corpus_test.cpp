// Regression test over the fuzzer's corpus (fuzz/corpus/onnx_import): every file imports or is
// rejected with a UserError; nothing else (InternalError, other exceptions, crashes) is allowed.
// valid-* seeds must import, invalid-* seeds must be rejected, mutated-* may do either; crash-*
// files are inputs that once broke the importer and are kept as regressions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnxio/import.h"
#include "util/error.h"

namespace hetcim::onnxio {
namespace {

namespace fs = std::filesystem;

TEST(FuzzCorpus, EveryFileImportsOrIsAUserError) {
  const fs::path dir = fs::path(HETCIM_SOURCE_DIR) / "fuzz" / "corpus" / "onnx_import";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  size_t files = 0, valid = 0, invalid = 0, total_bytes = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string name = entry.path().filename().string();
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    total_bytes += bytes.size();
    bool imported = false;
    try {
      (void)import_onnx_bytes(bytes, name);
      imported = true;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name + ": ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": escaped with a non-user error: " << e.what();
    }
    if (name.rfind("valid-", 0) == 0) {
      ++valid;
      EXPECT_TRUE(imported) << name;
    } else if (name.rfind("invalid-", 0) == 0) {
      ++invalid;
      EXPECT_FALSE(imported) << name;
    }
  }
  EXPECT_GE(valid, 7u);
  EXPECT_GE(invalid, 7u);
  EXPECT_LT(total_bytes, 1u << 20) << "keep the corpus under 1 MB";
  std::cout << files << " corpus files, " << total_bytes << " bytes\n";
}

}  // namespace
}  // namespace hetcim::onnxio
