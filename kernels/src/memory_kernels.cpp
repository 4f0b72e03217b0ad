// CPU reference of the triad. The product gets its own statement so no compiler fuses it with the sum
// into an FMA: the GPU kernel rounds both separately too, and results must match bit for bit.
#include "placebench/kernels/memory_kernels.h"

namespace placebench::kernels {

void triad_cpu(float* a, const float* b, const float* c, float scalar, std::size_t elements) {
  for (std::size_t i = 0; i < elements; ++i) {
    const float product = scalar * c[i];
    a[i] = b[i] + product;
  }
}

}  // namespace placebench::kernels
