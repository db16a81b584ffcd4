#include "exec/npy.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/limits.h"

namespace hetcim::exec {
namespace {

using graph::DType;

constexpr std::string_view kMagic = "\x93NUMPY";

struct Header {
  std::string descr;
  bool fortran = false;
  graph::Shape shape;
};

// A tiny parser for the Python literal dict NumPy writes: {'descr': '<f4', 'fortran_order': False,
// 'shape': (1, 3, 224, 224), }
class DictParser {
 public:
  DictParser(std::string_view s, std::string_view origin) : s_(s), origin_(origin) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "' in the header");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      break;
    }
    if (!seen_descr || !seen_fortran || !seen_shape)
      fail("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw user_error(origin_, ": not a valid .npy file: ", what);
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip_ws();
    if (peek() != c)
      fail(std::string("expected '") + c + "' at header offset " + std::to_string(i_));
    ++i_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"')
      fail("expected a quoted string at header offset " + std::to_string(i_));
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) out += s_[i_++];
    if (i_ >= s_.size()) fail("unterminated string in the header");
    ++i_;
    return out;
  }
  bool boolean() {
    skip_ws();
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }
  graph::Shape tuple() {
    expect('(');
    graph::Shape dims;
    while (true) {
      skip_ws();
      if (peek() == ')') {
        ++i_;
        return dims;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("'shape' must be a tuple of non-negative integers");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (int64_t{1} << 40)) fail("a dimension in 'shape' is too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      dims.push_back(v);
      skip_ws();
      if (peek() == ',')
        ++i_;
      else if (peek() != ')')
        fail("'shape' must be a tuple of non-negative integers");
    }
  }

  std::string_view s_;
  std::string_view origin_;
  size_t i_ = 0;
};

DType dtype_from_descr(const std::string& d, std::string_view origin) {
  std::string code = d;
  if (!code.empty() && (code[0] == '<' || code[0] == '|' || code[0] == '='))
    code = code.substr(1);
  else if (!code.empty() && code[0] == '>' && code != ">i1" && code != ">u1" && code != ">b1")
    throw user_error(origin, ": big-endian data ('", d,
                     "') is not supported; save it little-endian");
  else if (!code.empty() && code[0] == '>')
    code = code.substr(1);
  if (code == "f4") return DType::Float32;
  if (code == "f8") return DType::Float64;
  if (code == "i1") return DType::Int8;
  if (code == "u1") return DType::UInt8;
  if (code == "i4") return DType::Int32;
  if (code == "i8") return DType::Int64;
  if (code == "b1" || code == "?") return DType::Bool;
  throw user_error(origin, ": unsupported .npy dtype '", d,
                   "' (expected one of <f4 <f8 |i1 |u1 <i4 <i8 |b1)");
}

std::string descr_of(DType t) {
  switch (t) {
    case DType::Float32:
      return "<f4";
    case DType::Float64:
      return "<f8";
    case DType::Int8:
      return "|i1";
    case DType::UInt8:
      return "|u1";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::Bool:
      return "|b1";
  }
  return "?";
}

uint32_t read_le(std::string_view b, size_t at, size_t width) {
  uint32_t v = 0;
  for (size_t k = 0; k < width; ++k)
    v |= static_cast<uint32_t>(static_cast<uint8_t>(b[at + k])) << (8 * k);
  return v;
}

}  // namespace

size_t npy_header_size(std::string_view bytes, std::string_view origin) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    throw user_error(origin, ": not a .npy file (missing the \\x93NUMPY magic string)");
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    throw user_error(origin, ": unsupported .npy format version ", major, ".", minor,
                     " (expected 1.0, 2.0 or 3.0)");
  const size_t len_width = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_width) throw user_error(origin, ": truncated .npy header");
  const size_t len = read_le(bytes, 8, len_width);
  // Bounded before anything of that size is read or allocated (a 12-byte stream may declare 4 GB).
  if (len > kMaxNpyHeaderBytes)
    throw user_error(origin, ": .npy header length ", len, " is more than the ", kMaxNpyHeaderBytes,
                     " bytes hetcim reads (a header of a few hundred bytes "
                     "describes any array)");
  return 8 + len_width + len;
}

NpyHeader parse_npy_header(std::string_view bytes, std::string_view origin) {
  const size_t data_at = npy_header_size(bytes, origin);
  if (data_at > bytes.size())
    throw user_error(origin, ": .npy header length ", data_at - (bytes[6] == 1 ? 10 : 12),
                     " runs past the end of the file (", bytes.size(), " bytes)");
  const size_t len_width = bytes[6] == 1 ? 2 : 4;
  const Header h = DictParser(bytes.substr(8 + len_width, data_at - 8 - len_width), origin).parse();
  if (h.fortran)
    throw user_error(origin,
                     ": Fortran-order arrays are not supported; save with np.ascontiguousarray");
  return {dtype_from_descr(h.descr, origin), h.shape, data_at};
}

Tensor parse_npy(std::string_view bytes, std::string_view origin) {
  const NpyHeader nh = parse_npy_header(bytes, origin);
  const size_t data_at = nh.data_offset;
  Tensor t;
  t.dtype = nh.dtype;
  t.shape = nh.shape;
  const int64_t n = graph::element_count(t.shape);
  const size_t expected = static_cast<size_t>(n) * graph::dtype_size(t.dtype);
  if (bytes.size() - data_at != expected)
    throw user_error(origin, ": .npy data holds ", bytes.size() - data_at, " bytes, but shape ",
                     graph::shape_str(t.shape), " of ", descr_of(t.dtype), " needs ", expected);
  t.bytes.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_at), bytes.end());
  return t;
}

Tensor read_npy(const std::string& path) {
  InputCheck check;  // the magic string read first: a 3 GB file of another kind costs 6 bytes
  check.max_bytes = kMaxDataFileBytes;
  check.magic = kMagic;
  check.magic_name = "the \\x93NUMPY magic string";
  return parse_npy(read_input_file(path, ".npy array", check), path);
}

std::string npy_bytes(const Tensor& t) {
  std::string dict = "{'descr': '" + descr_of(t.dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    dict += std::to_string(t.shape[i]);
    if (t.shape.size() == 1 || i + 1 < t.shape.size()) dict += ", ";
  }
  dict += "), }";
  size_t prefix = 10;
  int major = 1;
  if (dict.size() + 1 + prefix > 65535) {
    major = 2;
    prefix = 12;
  }
  size_t total = prefix + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  const size_t len = dict.size();
  for (size_t k = 0; k < (major == 1 ? 2u : 4u); ++k)
    out += static_cast<char>((len >> (8 * k)) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  const std::string bytes = npy_bytes(t);
  write_file_atomically(path, bytes);
}

}  // namespace hetcim::exec
