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
  write_cache_file((fs::path(dir) / logit_file_name(e.key)).string(), out);
}

std::optional<CachedLogits> load_logits(const std::string& dir, const std::string& key) {
  const fs::path p = fs::path(dir) / logit_file_name(key);
  // Not followed or opened when a link, FIFO or device: computed again and replaced (files.h).
  const CacheFile f = read_cache_file(p.string(), "logit cache entry", int64_t{1} << 30);
  if (!f.usable) return std::nullopt;
  CachedLogits c = parse(f.text, p.string());
  if (c.key != key)
    throw user_error(p.string(),
                     ": logit cache entry holds another key (a hash collision or a "
                     "renamed file); delete it");
  return c;
}

namespace {

// A key as (line name -> fields); a line without "=" fields is one field "" holding its text.
using KeyFields =
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>;

KeyFields key_fields(const std::string& key) {
  KeyFields out;
  std::istringstream in(key);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const size_t sp = line.find(' ');
    const std::string name = line.substr(0, sp),
                      rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    // Leading words without "=" are the line's own field "" (a unit's name), the rest k=v.
    std::vector<std::pair<std::string, std::string>> fields;
    std::string lead;
    std::istringstream words(rest);
    bool all_fields = true;
    for (std::string w; words >> w;) {
      const size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (!fields.empty()) {
          all_fields = false;
          break;
        }
        lead += (lead.empty() ? "" : " ") + w;
        continue;
      }
      fields.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    if (all_fields && !lead.empty()) fields.insert(fields.begin(), {"", lead});
    if (!all_fields) fields = {{"", rest}};
    out.emplace_back(name, std::move(fields));
  }
  return out;
}

std::vector<std::string> differences(const KeyFields& want, const KeyFields& have) {
  std::vector<std::string> out;
  const auto find = [](const KeyFields& k, const std::string& name) {
    return std::find_if(k.begin(), k.end(), [&](const auto& l) { return l.first == name; });
  };
  for (const auto& [name, fields] : want) {
    const auto it = find(have, name);
    if (it == have.end()) {
      out.push_back("'" + name + "' only here");
      continue;
    }
    for (const auto& [field, value] : fields) {
      const auto f = std::find_if(it->second.begin(), it->second.end(),
                                  [&](const auto& x) { return x.first == field; });
      const std::string label = field.empty() ? name : name + " " + field;
      if (f == it->second.end())
        out.push_back(label + " only here");
      else if (f->second != value)
        out.push_back(label + ": '" + value + "' here, '" + f->second + "' in the cache");
    }
    for (const auto& [field, value] : it->second)
      if (std::none_of(fields.begin(), fields.end(),
                       [&](const auto& x) { return x.first == field; }))
        out.push_back((field.empty() ? name : name + " " + field) + " only in the cache");
  }
  for (const auto& [name, fields] : have)
    if (find(want, name) == want.end()) out.push_back("'" + name + "' only in the cache");
  return out;
}

}  // namespace

std::string closest_key_difference(const std::string& wanted,
                                   const std::vector<std::string>& cached) {
  const KeyFields want = key_fields(wanted);
  std::vector<std::string> best;
  bool found = false;
  for (const std::string& k : cached) {
    std::vector<std::string> d = differences(want, key_fields(k));
    if (!found || d.size() < best.size()) best = std::move(d), found = true;
  }
  std::string out;
  for (const std::string& d : best) out += (out.empty() ? "" : "; ") + d;
  return out;
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
