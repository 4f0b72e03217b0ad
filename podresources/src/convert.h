// The API's messages as placebench's plain structs (pod_resources.h), field for field.
#pragma once
#include "api.pb.h"
#include "placebench/podresources/pod_resources.h"

namespace placebench::podresources {

Pod from_proto(const v1::PodResources& pod);
Allocatable from_proto(const v1::AllocatableResourcesResponse& response);

}  // namespace placebench::podresources
