#pragma once
// The activation memory of one engine. The engine compiles its operators in the order it runs
// them; a tensor's bytes are handed out when its producer is compiled and given back once the
// last operator that reads it has been compiled, so a later tensor reuses them (activation
// memory planned by lifetime, first fit). Chunks never move: an address is final when it is
// handed out, which the compile-time memory views of the engine need. Untouched chunk pages are
// never resident, so the resident set follows the arena's high-water mark.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace hetcim::exec {

class Arena {
 public:
  explicit Arena(size_t chunk_bytes = size_t{256} << 20);

  // `bytes` (0 counts as 1) 64-byte aligned and zero-filled; never null.
  [[nodiscard]] void* allocate(size_t bytes);
  // p must come from allocate() and not have been released.
  void release(void* p);

  [[nodiscard]] size_t high_water_bytes() const;  // over all chunks, the highest end handed out
  [[nodiscard]] size_t in_use_bytes() const { return in_use_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> storage;  // NOLINT(*-avoid-c-arrays): uninitialised on purpose
    uint8_t* base = nullptr;             // 64-byte aligned start inside storage
    size_t size = 0;
    size_t high_water = 0;
    std::map<size_t, size_t> free;  // offset -> size, coalesced
  };
  struct Used {
    size_t chunk, offset, size;
  };
  size_t chunk_bytes_;
  size_t in_use_ = 0;
  std::vector<Chunk> chunks_;
  std::map<const void*, Used> used_;
};

}  // namespace hetcim::exec
