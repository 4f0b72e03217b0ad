// Input files through hostpipe's bounded reader, as InputErrors (see input_limits.h).
#include "placebench/harness/input_limits.h"

#include <utility>

#include "placebench/harness/errors.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::harness {

std::string read_input_file(const std::string& path, const std::string& fix, std::uint64_t max_bytes) {
  hostpipe::FileText f = hostpipe::read_regular_file(path, max_bytes);
  if (!f.ok) throw InputError(path + ": " + f.problem + "; " + fix);
  return std::move(f.text);
}

}  // namespace placebench::harness
