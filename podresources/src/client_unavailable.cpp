// The PodResources client of a build without gRPC (PLACEBENCH_ENABLE_PODRESOURCES=OFF, or AUTO without
// the packages): every call answers that it was not built, and the audit falls back to the state files.
#include "placebench/podresources/pod_resources.h"

namespace placebench::podresources {
namespace {

const char* const kNotBuilt =
    "placebench was built without the PodResources client (PLACEBENCH_ENABLE_PODRESOURCES: install libgrpc++-dev, "
    "protobuf-compiler-grpc and rebuild)";

}  // namespace

bool built() { return false; }

Client::Client(std::string socket_path, std::chrono::milliseconds deadline) : socket_path_(std::move(socket_path)), deadline_(deadline) {}

PodsAnswer Client::list() const { return {false, kNotBuilt, {}}; }
PodsAnswer Client::get(const std::string&, const std::string&) const { return {false, kNotBuilt, {}}; }
AllocatableAnswer Client::allocatable() const { return {false, kNotBuilt, {}}; }

}  // namespace placebench::podresources
