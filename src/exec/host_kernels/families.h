// The compile functions of the host-kernel families, one file each; the table is registry.cpp.
#pragma once

#include "exec/host_kernels/registry.h"

namespace hetcim::exec::host {

Run compile_reduce_mean(const KernelInput& k);          // reduce.cpp
Run compile_batch_normalization(const KernelInput& k);  // normalization.cpp
Run compile_layer_normalization(const KernelInput& k);  // normalization.cpp
Run compile_pad(const KernelInput& k);                  // pad.cpp
Run compile_erf(const KernelInput& k);                  // unary_math.cpp
Run compile_sqrt(const KernelInput& k);                 // unary_math.cpp
Run compile_gather(const KernelInput& k);               // gather.cpp

}  // namespace hetcim::exec::host
