// The hetcim binary on ONNX files of the kinds real exporters write (issue 10): operators `run`
// cannot execute are listed by `inspect` and refused by `run` before anything runs (node, operator
// and opset named, no output file); dimensions the file leaves open stop `inspect` with the node
// and tensor named (the QuantizeLinear the int8 lowering puts first reads it), or are resolved by
// --input-shape; --calibration-data is checked against the model's input.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../onnxio/fixtures.h"

namespace {

namespace fs = std::filesystem;
namespace fx = hetcim::onnxio::fixtures;

struct CliRun {
  int status;
  std::string out, err;
};

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("hetcim_cli_real_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

CliRun run(const std::string& args) {
  const std::string out = scratch("out.txt").string(), err = scratch("err.txt").string();
  const std::string cmd = std::string(HETCIM_BIN) + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

fs::path write(const onnx::ModelProto& m, const std::string& name) {
  const fs::path p = scratch(name);
  std::ofstream(p, std::ios::binary) << fx::serialize(m);
  return p;
}

// x (1x4) -> Relu -> Hardmax: an operator of ONNX that hetcim's engine has no kernel for.
fs::path with_hardmax() {
  fx::ModelBuilder b(13, "g");
  b.input("x", onnx::TensorProto::FLOAT, {1, 4});
  b.output("y", onnx::TensorProto::FLOAT, {1, 4});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Hardmax", {"r"}, {"y"}, "hm");
  return write(b.model(), "hardmax.onnx");
}

TEST(CliRealModels, InspectListsWhatRunCannotExecuteAndRunRefusesBeforeRunning) {
  const fs::path model = with_hardmax();
  const CliRun i = run("inspect " + model.string());
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.out.find("hetcim run cannot execute 1 operator:\n  node 'hm' (Hardmax, opset 13)"),
            std::string::npos)
      << i.out;
  const fs::path out = scratch("y.npy");
  fs::remove(out);
  const CliRun r = run("run " + model.string() + " --output " + out.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("node 'hm' (Hardmax): unsupported operator 'Hardmax' at opset 13"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("latency"), std::string::npos) << "nothing may have run: " << r.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliRealModels, OpenDimensionsStopInspectUnlessInputShapeResolvesThem) {
  fx::ModelBuilder b(13, "g");
  b.input("x", onnx::TensorProto::FLOAT, {1, std::string("features")});
  b.output("y", onnx::TensorProto::FLOAT, {1, std::string("features")});
  b.node("Relu", {"x"}, {"y"}, "relu");
  const fs::path model = write(b.model(), "open_dims.onnx");
  const CliRun bad = run("inspect " + model.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("(QuantizeLinear): the shape of tensor 'x' is 1x?"), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("--input-shape"), std::string::npos) << bad.err;
  const CliRun good = run("inspect " + model.string() + " --input-shape x=1x16");
  ASSERT_EQ(good.status, 0) << good.err;
  EXPECT_NE(good.out.find("1x16"), std::string::npos) << good.out;
  const CliRun typo = run("inspect " + model.string() + " --input-shape image=1x16");
  EXPECT_EQ(typo.status, 1);
  EXPECT_NE(typo.err.find("no input of that name (inputs: x)"), std::string::npos) << typo.err;
  const CliRun junk = run("inspect " + model.string() + " --input-shape x=1xabc");
  EXPECT_EQ(junk.status, 1);
  EXPECT_NE(junk.err.find("dimension 'abc'"), std::string::npos) << junk.err;
}

TEST(CliRealModels, CalibrationDataIsCheckedAgainstTheModelInput) {
  fx::ModelBuilder b(13, "g");
  b.input("x", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
  b.output("y", onnx::TensorProto::FLOAT, {1, 3, 4, 4});
  b.init_float("w", {3, 2, 1, 1}, {0.5f, -1, 1, 2, -0.25f, 0.75f});
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  const fs::path model = write(b.model(), "conv.onnx");
  // A .npy of the wrong shape: named, with what was expected.
  const fs::path npy = scratch("calib.npy");
  {
    const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2, 4, 5), }";
    std::string h = header;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::ofstream f(npy, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(h.size());
    f.write(reinterpret_cast<const char*>(&len), 2);
    f << h;
    const std::string zeros(3 * 2 * 4 * 5 * 4, '\0');
    f << zeros;
  }
  const CliRun r = run("run " + model.string() + " --precision int8 --calibration-data " +
                       npy.string() + " --runs 1 --warmup 0");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("shape 3x2x4x5, expected 1x2x4x4 or a stack"), std::string::npos) << r.err;
  const CliRun fp32 = run("run " + model.string() + " --calibration-data " + npy.string());
  EXPECT_EQ(fp32.status, 1);
  EXPECT_NE(fp32.err.find("applies to --precision int8"), std::string::npos) << fp32.err;
}

}  // namespace
