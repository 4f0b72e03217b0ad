// configs/default.yaml, compiled into the binary.
#pragma once

namespace placebench::harness {

const char* default_config_yaml();

}  // namespace placebench::harness
