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

[[nodiscard]] std::string npy_bytes(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace hetcim::exec
