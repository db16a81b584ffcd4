#include "exec/arena.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"

namespace hetcim::exec {

namespace {
constexpr size_t kAlign = 64;
size_t round_up(size_t n) {
  return (std::max<size_t>(n, 1) + kAlign - 1) / kAlign * kAlign;
}
}  // namespace

Arena::Arena(size_t chunk_bytes) : chunk_bytes_(round_up(chunk_bytes)) {}

void* Arena::allocate(size_t bytes) {
  const size_t need = round_up(bytes);
  for (size_t c = 0; c <= chunks_.size(); ++c) {
    if (c == chunks_.size()) {
      // No chunk has a free block that large: a new one, uninitialised (pages stay untouched,
      // so not resident, until a tensor is placed on them).
      Chunk k;
      k.size = std::max(chunk_bytes_, need);
      k.storage = std::make_unique_for_overwrite<uint8_t[]>(k.size + kAlign);
      const auto addr = reinterpret_cast<uintptr_t>(k.storage.get());
      k.base = k.storage.get() + (kAlign - addr % kAlign) % kAlign;
      k.free[0] = k.size;
      chunks_.push_back(std::move(k));
    }
    Chunk& k = chunks_[c];
    for (auto it = k.free.begin(); it != k.free.end(); ++it) {
      if (it->second < need) continue;
      const size_t offset = it->first, size = it->second;
      k.free.erase(it);
      if (size > need) k.free[offset + need] = size - need;
      k.high_water = std::max(k.high_water, offset + need);
      void* p = k.base + offset;
      std::memset(p, 0, need);
      used_[p] = {c, offset, need};
      in_use_ += need;
      return p;
    }
  }
  throw internal_error("arena: no block after adding a chunk");  // unreachable
}

void Arena::release(void* p) {
  auto u = used_.find(p);
  HETCIM_ASSERT(u != used_.end(), "arena: release of a pointer it did not hand out");
  Chunk& k = chunks_[u->second.chunk];
  size_t offset = u->second.offset, size = u->second.size;
  in_use_ -= size;
  used_.erase(u);
  // Coalesce with the free neighbours.
  auto next = k.free.lower_bound(offset);
  if (next != k.free.end() && next->first == offset + size) {
    size += next->second;
    next = k.free.erase(next);
  }
  if (next != k.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      k.free.erase(prev);
    }
  }
  k.free[offset] = size;
}

size_t Arena::high_water_bytes() const {
  size_t s = 0;
  for (const Chunk& k : chunks_) s += k.high_water;
  return s;
}

}  // namespace hetcim::exec
