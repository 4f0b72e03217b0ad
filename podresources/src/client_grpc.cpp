// The PodResources client over gRPC (see pod_resources.h): a channel to unix:<socket>, one call with a
// deadline, the answer converted to plain structs (convert.h).
#include <grpcpp/grpcpp.h>

#include "api.grpc.pb.h"
#include "convert.h"
#include "placebench/podresources/pod_resources.h"

namespace placebench::podresources {
namespace {

std::unique_ptr<v1::PodResourcesLister::Stub> stub_for(const std::string& socket_path) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxAnswerBytes);
  return v1::PodResourcesLister::NewStub(
      grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args));
}

// One line: the call, gRPC's status code and message, and what to check.
std::string failure(const char* call, const grpc::Status& status, const std::string& socket_path) {
  static const char* const kCodes[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
                                       "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
                                       "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  const int code = static_cast<int>(status.error_code());
  std::string message = status.error_message();
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::string hint = status.error_code() == grpc::StatusCode::UNAVAILABLE        ? " (is the kubelet running, and the socket mounted?)"
                     : status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? " (the kubelet did not answer in time)"
                     : status.error_code() == grpc::StatusCode::UNIMPLEMENTED     ? " (a kubelet older than this call: Get needs 1.27)"
                                                                                   : "";
  return std::string(call) + " on " + socket_path + ": " + (code >= 0 && code <= 16 ? kCodes[code] : "code " + std::to_string(code)) +
         ": " + message + hint;
}

template <typename Response, typename Call>
bool call_with_deadline(const std::string& socket_path, std::chrono::milliseconds deadline, Call call, Response& response,
                        const char* name, std::string& error) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  grpc::Status status = call(*stub_for(socket_path), &context, &response);
  if (!status.ok()) error = failure(name, status, socket_path);
  return status.ok();
}

}  // namespace

bool built() { return true; }

Client::Client(std::string socket_path, std::chrono::milliseconds deadline) : socket_path_(std::move(socket_path)), deadline_(deadline) {}

PodsAnswer Client::list() const {
  PodsAnswer a;
  v1::ListPodResourcesResponse response;
  a.ok = call_with_deadline(socket_path_, deadline_, [](auto& stub, grpc::ClientContext* c, auto* r) {
    return stub.List(c, v1::ListPodResourcesRequest(), r);
  }, response, "List", a.error);
  if (a.ok)
    for (const v1::PodResources& p : response.pod_resources()) a.pods.push_back(from_proto(p));
  return a;
}

PodsAnswer Client::get(const std::string& pod_name, const std::string& pod_namespace) const {
  PodsAnswer a;
  v1::GetPodResourcesRequest request;
  request.set_pod_name(pod_name);
  request.set_pod_namespace(pod_namespace);
  v1::GetPodResourcesResponse response;
  a.ok = call_with_deadline(socket_path_, deadline_, [&](auto& stub, grpc::ClientContext* c, auto* r) {
    return stub.Get(c, request, r);
  }, response, "Get", a.error);
  if (a.ok && response.has_pod_resources()) a.pods.push_back(from_proto(response.pod_resources()));
  return a;
}

AllocatableAnswer Client::allocatable() const {
  AllocatableAnswer a;
  v1::AllocatableResourcesResponse response;
  a.ok = call_with_deadline(socket_path_, deadline_, [](auto& stub, grpc::ClientContext* c, auto* r) {
    return stub.GetAllocatableResources(c, v1::AllocatableResourcesRequest(), r);
  }, response, "GetAllocatableResources", a.error);
  if (a.ok) a.allocatable = from_proto(response);
  return a;
}

}  // namespace placebench::podresources
