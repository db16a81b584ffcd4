#include "data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>

#include "util/error.h"
#include "util/limits.h"

namespace hetcim::data {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzHandle = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly n bytes; false at a clean or premature end of file.
bool read_exact(gzFile f, uint8_t* out, size_t n, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    const auto chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const int got = gzread(f, out + done, chunk);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(f, &code);
      throw user_error(path, ": cannot read (", msg != nullptr ? msg : "zlib error", ")");
    }
    if (got == 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  GzHandle f(gzopen(path.c_str(), "rb"));
  if (!f) throw user_error(path, ": cannot open the IDX file (missing or unreadable)");
  std::array<uint8_t, 4> magic{};
  if (!read_exact(f.get(), magic.data(), 4, path))
    throw user_error(path, ": not an IDX file (shorter than its 4-byte header)");
  if (magic[0] != 0 || magic[1] != 0)
    throw user_error(path, ": not an IDX file (the magic number must start with two zero bytes)");
  if (magic[2] != 0x08)
    throw user_error(path, ": IDX data type 0x", std::hex, int(magic[2]),
                     " is not supported (expected 0x08, unsigned bytes)");
  const int rank = magic[3];
  if (rank < 1 || rank > 4) throw user_error(path, ": IDX rank ", rank, " is not in [1, 4]");
  IdxArray a;
  for (int i = 0; i < rank; ++i) {
    std::array<uint8_t, 4> d{};
    if (!read_exact(f.get(), d.data(), 4, path)) throw user_error(path, ": truncated IDX header");
    a.dims.push_back((int64_t{d[0]} << 24) | (int64_t{d[1]} << 16) | (int64_t{d[2]} << 8) | d[3]);
  }
  const int64_t total =
      checked_elements(a.dims, kMaxDataFileBytes, path + ": IDX header dimensions");
  // Read in chunks, so a header that promises more than the file holds fails at the truncation
  // after allocating only what the file has.
  constexpr int64_t kChunk = int64_t{1} << 26;
  for (int64_t done = 0; done < total;) {
    const int64_t n = std::min(kChunk, total - done);
    a.data.resize(static_cast<size_t>(done + n));
    if (!read_exact(f.get(), a.data.data() + done, static_cast<size_t>(n), path))
      throw user_error(path, ": truncated IDX data (the header promises ", total,
                       " bytes after it)");
    done += n;
  }
  uint8_t extra = 0;
  if (read_exact(f.get(), &extra, 1, path))
    throw user_error(path, ": unexpected bytes after the ", total, " data bytes of the IDX file");
  return a;
}

void write_idx(const std::string& path, const IdxArray& a, bool gzip) {
  GzHandle f(gzopen(path.c_str(), gzip ? "wb6" : "wbT"));
  if (!f) throw user_error(path, ": cannot create the file");
  std::vector<uint8_t> header = {0, 0, 0x08, static_cast<uint8_t>(a.dims.size())};
  for (int64_t d : a.dims)
    for (int shift = 24; shift >= 0; shift -= 8) header.push_back(static_cast<uint8_t>(d >> shift));
  auto put = [&](const uint8_t* p, size_t n) {
    if (n > 0 && gzwrite(f.get(), p, static_cast<unsigned>(n)) != static_cast<int>(n))
      throw user_error(path, ": write failed");
  };
  put(header.data(), header.size());
  put(a.data.data(), a.data.size());
  if (gzclose(f.release()) != Z_OK) throw user_error(path, ": write failed");
}

}  // namespace hetcim::data
