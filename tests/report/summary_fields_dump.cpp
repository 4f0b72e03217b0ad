// Prints summary.json's field table (harness/src/runner/summary_table.h) as JSON, for
// test_report_summary_fields.py to compare with the report's own check of summary.json (validate.py).
#include <iostream>

#include "placebench/harness/runner/summary_fields.h"

int main() {
  std::cout << placebench::harness::summary_field_list().dump(2) << "\n";
  return 0;
}
