// Printing or recording a command's JSON (json_output.h).
#include "placebench/harness/cli/json_output.h"

#include <iostream>

#include "placebench/harness/cli/out_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness {

void refuse_existing_out(const std::string& out) {
  if (!out.empty()) check_out_file(out);
}

int emit_report(nlohmann::json j, const std::string& table, bool as_json, const std::string& out) {
  stamp_evidence(j);
  if (!out.empty()) write_out_file(out, j.dump(2) + "\n");
  if (as_json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << table;
  return kExitOk;
}

}  // namespace placebench::harness
