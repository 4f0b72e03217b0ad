// Printers of the node inventory: JSON (the documented schema) and the human-readable table.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/topology/inventory.h"

namespace placebench::harness {

nlohmann::json inventory_to_json(const Inventory& inv);
std::string render_inventory_table(const Inventory& inv);

}  // namespace placebench::harness
