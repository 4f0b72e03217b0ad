// A PodResourcesLister of the tests' own: a real gRPC server on a unix socket in a temporary directory,
// serving recorded answers (tests/fixtures/podresources, protobuf's JSON mapping as grpcurl prints it).
// Get answers List's pod of that name and namespace, or NOT_FOUND as the kubelet does. A delay makes
// every call wait (polling for the client's cancellation), to test the client's deadline.
#pragma once
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "api.grpc.pb.h"

namespace placebench::podresources::testing {

template <typename Message>
Message recorded(const std::string& name) {
  std::ifstream in(std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/podresources/" + name);
  std::stringstream text;
  text << in.rdbuf();
  Message m;
  if (!google::protobuf::util::JsonStringToMessage(text.str(), &m).ok()) throw std::runtime_error(name + ": not the API's JSON");
  return m;
}

class RecordedKubelet final : public v1::PodResourcesLister::Service {
 public:
  RecordedKubelet()
      : list_(recorded<v1::ListPodResourcesResponse>("list.json")),
        allocatable_(recorded<v1::AllocatableResourcesResponse>("allocatable.json")) {}
  std::chrono::milliseconds delay{0};

  grpc::Status List(grpc::ServerContext* c, const v1::ListPodResourcesRequest*, v1::ListPodResourcesResponse* r) override {
    if (!wait(c)) return grpc::Status::CANCELLED;
    *r = list_;
    return grpc::Status::OK;
  }
  grpc::Status Get(grpc::ServerContext* c, const v1::GetPodResourcesRequest* q, v1::GetPodResourcesResponse* r) override {
    if (!wait(c)) return grpc::Status::CANCELLED;
    for (const v1::PodResources& p : list_.pod_resources())
      if (p.name() == q->pod_name() && p.namespace_() == q->pod_namespace()) {
        *r->mutable_pod_resources() = p;
        return grpc::Status::OK;
      }
    return {grpc::StatusCode::NOT_FOUND, "pod " + q->pod_name() + " not found in namespace " + q->pod_namespace()};
  }
  grpc::Status GetAllocatableResources(grpc::ServerContext* c, const v1::AllocatableResourcesRequest*,
                                       v1::AllocatableResourcesResponse* r) override {
    if (!wait(c)) return grpc::Status::CANCELLED;
    *r = allocatable_;
    return grpc::Status::OK;
  }

 private:
  bool wait(grpc::ServerContext* c) const {
    for (auto end = std::chrono::steady_clock::now() + delay; std::chrono::steady_clock::now() < end;) {
      if (c->IsCancelled()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }
  v1::ListPodResourcesResponse list_;
  v1::AllocatableResourcesResponse allocatable_;
};

// The server, started on <temp>/pod-resources-<name>/kubelet.sock; stopped (with a deadline) when destroyed.
class KubeletSocket {
 public:
  explicit KubeletSocket(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() / ("pb-pod-resources-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + path(), grpc::InsecureServerCredentials());
    builder.RegisterService(&service);
    server_ = builder.BuildAndStart();
    if (!server_) throw std::runtime_error("cannot serve on " + path());
  }
  ~KubeletSocket() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    std::filesystem::remove_all(dir_);
  }
  std::string path() const { return (dir_ / "kubelet.sock").string(); }
  RecordedKubelet service;

 private:
  std::filesystem::path dir_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace placebench::podresources::testing
