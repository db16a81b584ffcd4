// NumPy .npy files (format versions 1.0, 2.0 and 3.0) for `hetcim run --input/--output`.
//
// Reading validates the whole header: the magic string, the version, the header length against the
// file size, a dict with exactly the keys 'descr', 'fortran_order' and 'shape', a little-endian or
// byte-order-free descr among '<f4' '<f8' '|i1' '|u1' '<i4' '<i8' '|b1' (also written with '='
// or without a byte-order mark where NumPy allows it), fortran_order False, non-negative dims, and
// a data section of exactly the size the header implies. Every failure is a UserError naming the
// file and what was expected. Writing always produces version 1.0 (2.0 when the header needs it),
// C order, padded so the data starts at a multiple of 64 bytes, and replaces the file atomically.
#pragma once

#include <string>
#include <string_view>

#include "exec/tensor.h"

namespace hetcim::exec {

[[nodiscard]] Tensor read_npy(const std::string& path);
// Parses the bytes of an .npy file; `origin` names it in errors.
[[nodiscard]] Tensor parse_npy(std::string_view bytes, std::string_view origin);

// The header of an .npy stream (data not yet read): its dtype, shape and the byte offset of the
// data. `npy_header_size` needs the first 12 bytes (8 + the widest length field) and returns the
// size of the whole header; `parse_npy_header` needs at least that many bytes and checks them as
// parse_npy does, except the data size (a stream's records arrive later).
struct NpyHeader {
  graph::DType dtype = graph::DType::Float32;
  graph::Shape shape;
  size_t data_offset = 0;
};
inline constexpr size_t kNpyPrefixBytes = 12;
// The longest header npy_header_size accepts (numpy writes ~128 bytes; it refuses over 10,000 when
// reading): a UserError beyond, before any of it is read.
inline constexpr size_t kMaxNpyHeaderBytes = size_t{1} << 16;
[[nodiscard]] size_t npy_header_size(std::string_view first_bytes, std::string_view origin);
[[nodiscard]] NpyHeader parse_npy_header(std::string_view bytes, std::string_view origin);

[[nodiscard]] std::string npy_bytes(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace hetcim::exec
