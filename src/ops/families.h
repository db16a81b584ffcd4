// The kernel compilers of the families in this folder, one file each; the table is registry.cpp.
#pragma once

#include "ops/kernel.h"

namespace hetcim::ops {

Run compile_binary(const KernelInput& k);               // binary.cpp
Run compile_batch_normalization(const KernelInput& k);  // normalization.cpp
Run compile_softmax(const KernelInput& k);              // softmax.cpp
Run compile_reduce_mean(const KernelInput& k);          // reduce.cpp
Run compile_layer_normalization(const KernelInput& k);  // layer_norm.cpp
Run compile_gelu(const KernelInput& k);                 // gelu.cpp
Run compile_pad(const KernelInput& k);                  // pad.cpp
Run compile_erf(const KernelInput& k);                  // unary_math.cpp
Run compile_sqrt(const KernelInput& k);                 // unary_math.cpp
Run compile_gather(const KernelInput& k);               // gather.cpp

}  // namespace hetcim::ops
