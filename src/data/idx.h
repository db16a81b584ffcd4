// The IDX format of (Fashion-)MNIST: a 4-byte magic (0, 0, type, rank), `rank` big-endian 32-bit
// dimensions, then the data. Files may be gzip-compressed (read through zlib, which also reads
// plain files); only unsigned-byte data (type 0x08) is supported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetcim::data {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// Reads a whole file; UserError naming the file when it is missing, not IDX, not unsigned bytes,
// truncated or followed by extra bytes.
[[nodiscard]] IdxArray read_idx(const std::string& path);

// Writes an uncompressed (gzip = false) or gzip-compressed IDX file of unsigned bytes
// (tests and tools build fixture files with it).
void write_idx(const std::string& path, const IdxArray& a, bool gzip);

}  // namespace hetcim::data
