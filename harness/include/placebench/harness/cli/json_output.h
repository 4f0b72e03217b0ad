// The JSON object a command prints, with its evidence (host, UTC time, placebench version: evidence.h)
// stamped beside its schema_version, so files gathered from many nodes can be told apart.
#pragma once
#include <nlohmann/json.hpp>

#include "placebench/harness/evidence.h"

namespace placebench::harness {

inline nlohmann::json with_evidence(nlohmann::json object) {
  stamp_evidence(object);
  return object;
}

}  // namespace placebench::harness
