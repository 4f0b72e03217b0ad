// JSON form of the statistics results (nlohmann::json, found by ADL: `nlohmann::json j = result;`).
// Field names match the struct members; enums are strings; infinities become null.
#pragma once
#include <nlohmann/json.hpp>

#include "placebench/stats/comparison.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/sequential.h"

namespace placebench::stats {

void to_json(nlohmann::json& j, const QuantileCi& ci);
void to_json(nlohmann::json& j, const SampleSummary& summary);
void to_json(nlohmann::json& j, const ShiftCi& ci);
void to_json(nlohmann::json& j, const RankTest& test);
void to_json(nlohmann::json& j, const PercentCi& ci);
void to_json(nlohmann::json& j, const PairedComparison& comparison);
void to_json(nlohmann::json& j, const UnpairedComparison& comparison);
void to_json(nlohmann::json& j, const HolmAdjustment& holm);
void to_json(nlohmann::json& j, const Look& look);

}  // namespace placebench::stats
