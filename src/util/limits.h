// Limits on sizes derived from input (tensor shapes in a model, dimensions in a dataset header,
// layer flags), checked with overflow-safe arithmetic before anything of that size is allocated
// or counted, so a hostile or mistyped size is a UserError up front, never std::bad_alloc, a
// wrapped-around count or minutes of growing memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace hetcim {

// Elements of one tensor (an activation, a weight, a dataset array): 2^30, 4 GiB as float32.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 30;
// Bytes read from one data file (IDX, .npy, CIFAR-10 binary): 4 GiB.
inline constexpr int64_t kMaxDataFileBytes = int64_t{1} << 32;

// a * b and a + b for non-negative operands, nullopt when the result does not fit in int64.
[[nodiscard]] std::optional<int64_t> checked_mul(int64_t a, int64_t b);
[[nodiscard]] std::optional<int64_t> checked_add(int64_t a, int64_t b);

// The product of `dims` (each >= 0); UserError "<what>: <n0>x<n1>x... has more than <limit>
// elements" when it exceeds `limit` or int64.
[[nodiscard]] int64_t checked_elements(std::span<const int64_t> dims, int64_t limit,
                                       std::string_view what);

}  // namespace hetcim
