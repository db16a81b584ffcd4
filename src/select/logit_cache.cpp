#include "select/logit_cache.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/hash.h"

namespace hetcim::select {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "HETCIM-LOGITS 1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;
// A sanity limit on what a header may announce before anything is allocated (10^9 values).
constexpr int64_t kMaxValues = 1'000'000'000;

uint64_t fnv(const void* data, size_t n) {
  Fnv1a h;
  h.update(data, n);
  return h.h;
}

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct Reader {
  const std::string& bytes;
  const std::string& file;
  size_t pos = 0;
  void need(size_t n) const {
    if (bytes.size() - pos < n)
      throw user_error(file, ": logit cache entry is truncated (", bytes.size(), " bytes)");
  }
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw user_error(p.string(), ": cannot read the logit cache entry");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CachedLogits parse(const std::string& bytes, const std::string& file) {
  if (bytes.size() < kMagicSize + 8 || bytes.compare(0, kMagicSize, kMagic) != 0)
    throw user_error(file, ": not a hetcim logit cache entry (expected the header '",
                     std::string(kMagic, kMagicSize - 1), "')");
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (fnv(bytes.data(), bytes.size() - 8) != stored)
    throw user_error(file, ": logit cache entry is damaged (checksum mismatch); delete it");
  Reader r{bytes, file, kMagicSize};
  const uint64_t key_size = r.get<uint64_t>();
  r.need(key_size);
  CachedLogits c;
  c.key.assign(bytes, r.pos, key_size);
  r.pos += key_size;
  const int64_t rows = r.get<int64_t>();
  c.classes = r.get<int64_t>();
  if (rows < 0 || c.classes < 1 || rows > kMaxValues / c.classes)
    throw user_error(file, ": logit cache entry announces ", rows, " rows x ", c.classes,
                     " classes (expected rows >= 0, classes >= 1, at most ", kMaxValues,
                     " values)");
  r.need(static_cast<size_t>(rows) + static_cast<size_t>(rows * c.classes) * 4 + 8);
  c.labels.assign(bytes.begin() + static_cast<int64_t>(r.pos),
                  bytes.begin() + static_cast<int64_t>(r.pos) + rows);
  r.pos += static_cast<size_t>(rows);
  c.logits.resize(static_cast<size_t>(rows * c.classes));
  std::memcpy(c.logits.data(), bytes.data() + r.pos, c.logits.size() * 4);
  r.pos += c.logits.size() * 4;
  if (r.pos + 8 != bytes.size())
    throw user_error(file, ": logit cache entry has ", bytes.size() - r.pos - 8, " trailing bytes");
  return c;
}

}  // namespace

std::string logit_file_name(const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.logits",
                static_cast<unsigned long long>(fnv(key.data(), key.size())));
  return name;
}

void store_logits(const std::string& dir, const CachedLogits& e) {
  if (e.classes < 1 || e.logits.size() != e.labels.size() * static_cast<size_t>(e.classes))
    throw user_error("logit cache: ", e.labels.size(), " labels and ", e.logits.size(),
                     " logits do not make rows x ", e.classes, " classes");
  std::string out(kMagic, kMagicSize);
  put(out, static_cast<uint64_t>(e.key.size()));
  out += e.key;
  put(out, static_cast<int64_t>(e.labels.size()));
  put(out, e.classes);
  out.append(reinterpret_cast<const char*>(e.labels.data()), e.labels.size());
  out.append(reinterpret_cast<const char*>(e.logits.data()), e.logits.size() * 4);
  put(out, fnv(out.data(), out.size()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw user_error(dir, ": cannot create the logit cache directory (", ec.message(), ")");
  write_file_atomically((fs::path(dir) / logit_file_name(e.key)).string(), out);
}

std::optional<CachedLogits> load_logits(const std::string& dir, const std::string& key) {
  const fs::path p = fs::path(dir) / logit_file_name(key);
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  CachedLogits c = parse(slurp(p), p.string());
  if (c.key != key)
    throw user_error(p.string(),
                     ": logit cache entry holds another key (a hash collision or a "
                     "renamed file); delete it");
  return c;
}

std::vector<std::string> cached_keys(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw user_error(dir, ": not a directory (expected a logit cache written by hetcim)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".logits") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> keys;
  for (const fs::path& p : files) keys.push_back(parse(slurp(p), p.string()).key);
  return keys;
}

}  // namespace hetcim::select
