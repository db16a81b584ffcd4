// .npy reading and writing: round trip, bytes NumPy would accept, header validation errors.
#include "exec/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "util/error.h"

namespace hetcim::exec {
namespace {

std::string header(const std::string& dict, int version = 1) {
  std::string s = "\x93NUMPY";
  s += static_cast<char>(version);
  s += '\0';
  const size_t len = dict.size();
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>(len >> 8);
  if (version > 1) s += std::string(2, '\0');
  return s + dict;
}

void expect_error(const std::string& bytes, const std::string& fragment) {
  try {
    (void)parse_npy(bytes, "in.npy");
    FAIL() << "no error, expected: " << fragment;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("in.npy: ", 0), 0u) << e.what();
  }
}

TEST(Npy, RoundTripThroughAFile) {
  Tensor t = Tensor::from_floats({2, 3}, {1, -2, 3.5f, 0, 1e-7f, -1e7f});
  const std::string path =
      (std::filesystem::temp_directory_path() / "hetcim_npy_test.npy").string();
  write_npy(path, t);
  const Tensor back = read_npy(path);
  EXPECT_EQ(back.dtype, graph::DType::Float32);
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.bytes, t.bytes);
  std::filesystem::remove(path);
}

TEST(Npy, WritesWhatNumPyWrites) {
  Tensor t = Tensor::zeros(graph::DType::UInt8, {3});
  const std::string b = npy_bytes(t);
  EXPECT_EQ(b.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(b.size() % 64, 3u);  // data starts at a multiple of 64
  EXPECT_NE(b.find("{'descr': '|u1', 'fortran_order': False, 'shape': (3, ), }"),
            std::string::npos);
  EXPECT_EQ(b[b.size() - 4], '\n');
  const Tensor scalar = parse_npy(npy_bytes(Tensor::from_floats({}, {4.0f})), "s");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.floats(), std::vector<float>{4.0f});
}

TEST(Npy, ReadsVersion2AndOtherDtypes) {
  std::string b = header("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n", 2);
  const int64_t v[2] = {-5, 7};
  b.append(reinterpret_cast<const char*>(v), 16);
  const Tensor t = parse_npy(b, "v2");
  EXPECT_EQ(t.dtype, graph::DType::Int64);
  EXPECT_EQ(t.at(0), -5);
  EXPECT_EQ(t.at(1), 7);
}

TEST(Npy, RejectsBadFiles) {
  expect_error("hello", "not a .npy file");
  expect_error(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 9),
               "version 9.0");
  expect_error(header("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }") + "ab",
               "unsupported .npy dtype '<f2'");
  expect_error(header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }") + "abcd",
               "big-endian");
  expect_error(header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }") + "abcd",
               "Fortran-order");
  expect_error(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }") + "abcd",
               "data holds 4 bytes, but shape 2 of <f4 needs 8");
  expect_error(header("{'descr': '<f4', 'shape': (1,), }") + "abcd",
               "'descr', 'fortran_order' and 'shape'");
  expect_error(header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"),
               "non-negative");
  std::string cut = header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
  cut[8] = static_cast<char>(0xff);  // header length past the end
  expect_error(cut, "runs past the end");
  try {
    (void)read_npy("/nonexistent/x.npy");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.npy': cannot open the .npy array"),
              std::string::npos);
  }
}

// A stream's header alone: the size from the first 12 bytes, then dtype, shape and the data offset
// (the offset of npy_bytes' 64-byte-aligned data; records may be missing or still to come).
TEST(Npy, ReadsAStreamsHeaderBeforeItsData) {
  const std::string b = npy_bytes(Tensor::zeros(graph::DType::UInt8, {5, 2, 3}));
  const size_t data_at = b.size() - 30;
  EXPECT_EQ(npy_header_size(b.substr(0, kNpyPrefixBytes), "s"), data_at);
  const NpyHeader h = parse_npy_header(b.substr(0, data_at), "s");
  EXPECT_EQ(h.dtype, graph::DType::UInt8);
  EXPECT_EQ(h.shape, (graph::Shape{5, 2, 3}));
  EXPECT_EQ(h.data_offset, data_at);
  EXPECT_THROW((void)parse_npy_header(b.substr(0, data_at - 1), "s"), UserError);
  EXPECT_THROW((void)npy_header_size("not numpy at all", "s"), UserError);
}

}  // namespace
}  // namespace hetcim::exec
