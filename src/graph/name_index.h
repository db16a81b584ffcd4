// A set of names with an int each, by open addressing (linear probing in a power-of-two table at
// most half full, no deletion) over views of strings that outlive it: graph::validate() indexes
// every tensor and node name after every pass, and a node-based hash map allocated and freed one
// node per name (a quarter of importing a 100,000-node chain, bench/import/chain.sh).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace hetcim::graph {

class NameIndex {
 public:
  // Room for `capacity` names (more would loop for ever: size it to the names it will hold).
  explicit NameIndex(size_t capacity) {
    size_t size = 16;
    while (size < 2 * capacity + 2) size <<= 1;
    slots_.resize(size);
    mask_ = size - 1;
  }
  // Adds name -> value; false, and nothing changed, when the name is there already.
  bool insert(std::string_view name, int value) {
    for (size_t i = std::hash<std::string_view>{}(name)&mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {name, value, true};
        return true;
      }
      if (s.name == name) return false;
    }
  }
  // The value of `name`, nullptr when absent.
  [[nodiscard]] const int* find(std::string_view name) const {
    for (size_t i = std::hash<std::string_view>{}(name)&mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.name == name) return &s.value;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    int value = 0;
    bool used = false;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace hetcim::graph
