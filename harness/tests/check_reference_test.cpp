// Reference files for `placebench check`: the accepted form, and bad input named by file, line and key.
#include <gtest/gtest.h>

#include "placebench/harness/check/reference.h"
#include "placebench/harness/check/metric_units.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::check;

namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_reference_text(yaml, "ref.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CheckReference, ParsesReferencesAndExpectations) {
  ReferenceFile f = parse_reference_text(R"(
schema_version: 1
require_complete: false
references:
  - {class: tiny, arm: local, metric: median, target: 3.2, lower: -0.5, upper: 0.5, unit: us}
  - {class: tiny, arm: local, metric: trials.bytes_per_s, target: 40, lower: null, upper: 1, unit: GB/s, name: bw}
expectations:
  - {class: tiny, arm: unpinned, max_slower_pct: 5, basis: ci_upper}
  - {class: tiny, arm: unpinned, verdict: [equivalent, inconclusive]}
  - {class: tiny, arm: unpinned, verdict: faster}
)",
                                         "ref.yaml");
  EXPECT_FALSE(f.require_complete);
  ASSERT_EQ(f.references.size(), 2u);
  EXPECT_EQ(f.references[0].name, "tiny/local median");
  EXPECT_EQ(f.references[0].where, "ref.yaml:5");
  EXPECT_DOUBLE_EQ(*f.references[0].lower, -0.5);
  EXPECT_EQ(f.references[1].name, "bw");
  EXPECT_FALSE(f.references[1].lower.has_value());
  ASSERT_EQ(f.expectations.size(), 3u);
  EXPECT_EQ(f.expectations[0].basis, RatioBasis::kCiUpper);
  EXPECT_EQ(*f.expectations[0].max_slower_pct, 5);
  EXPECT_EQ(f.expectations[0].name, "tiny/unpinned at most 5% slower");
  EXPECT_EQ(f.expectations[1].verdicts, (std::vector<std::string>{"equivalent", "inconclusive"}));
  EXPECT_EQ(f.expectations[2].verdicts, (std::vector<std::string>{"faster"}));
}

TEST(CheckReference, BadInputNamesFileLineAndKey) {
  EXPECT_NE(error_of("references:\n  - {class: a, arm: b, metric: median, target: 1, lower: -0.1, upper: 0.1, unit: us, colour: red}\n")
                .find("ref.yaml:2: references[0].colour: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("references:\n  - {class: a, arm: b, metric: median, target: 1, upper: 0.1, unit: us}\n")
                .find("ref.yaml:2: references[0].lower: missing"),
            std::string::npos);
  EXPECT_NE(error_of("references:\n  - class: a\n    arm: b\n    metric: median\n    target: 1\n    lower: 0.2\n    upper: 0.1\n    unit: us\n")
                .find("ref.yaml:6: references[0].lower: '0.2' is not a number in [-1, 0]"),
            std::string::npos);
  EXPECT_NE(error_of("references:\n  - {class: a, arm: b, metric: median, target: 1, lower: -0.1, upper: 0.1, unit: GB/s}\n")
                .find("not a time unit for median; accepted: ns, us, ms, s"),
            std::string::npos);
  EXPECT_NE(error_of("references:\n  - {class: a, arm: b, metric: ratio_pct, target: 1, lower: -0.1, upper: 0.1, unit: '%'}\n")
                .find("for ratios use an expectation"),
            std::string::npos);
  EXPECT_NE(error_of("expectations:\n  - {class: a, arm: b}\n").find("give exactly one of max_slower_pct"), std::string::npos);
  EXPECT_NE(error_of("expectations:\n  - {class: a, arm: b, verdict: [faster, quick]}\n")
                .find("expectations[0].verdict[1]: 'quick' is not accepted; accepted values: faster, slower, equivalent, inconclusive"),
            std::string::npos);
  EXPECT_NE(error_of("expectations:\n  - {class: a, arm: b, verdict: faster, basis: ci_upper}\n").find("only with max_slower_pct"),
            std::string::npos);
  EXPECT_NE(error_of("schema_version: 2\nexpectations: []\n").find("ref.yaml:1: schema_version: 2 is not a reference schema"),
            std::string::npos);
  EXPECT_NE(error_of("expectations: []\n").find("no checks"), std::string::npos);
  EXPECT_NE(error_of("references: [\n").find("ref.yaml:"), std::string::npos);
  EXPECT_NE(error_of("- a\n").find("is a mapping"), std::string::npos);
  EXPECT_THROW(load_reference_file("/nonexistent/ref.yaml"), InputError);
}

TEST(CheckUnits, DimensionsAndConversion) {
  EXPECT_TRUE(is_known_metric("p99"));
  EXPECT_TRUE(is_known_metric("trials.wait_ns_median"));
  EXPECT_FALSE(is_known_metric("trials."));
  EXPECT_FALSE(is_known_metric("trials.a.b"));
  EXPECT_EQ(metric_dimension("trials.wait_ns_median"), Dimension::kTime);
  EXPECT_EQ(metric_dimension("trials.input_bound_pct"), Dimension::kPercent);
  EXPECT_EQ(metric_dimension("trials.bytes_per_s"), Dimension::kBandwidth);
  EXPECT_EQ(metric_dimension("trials.throughput_bytes_s"), Dimension::kBandwidth);
  EXPECT_EQ(metric_dimension("trials.median_ns"), Dimension::kTime);
  EXPECT_EQ(metric_dimension("trials.dns_lookups"), Dimension::kOther);
  EXPECT_EQ(metric_dimension("trials.throughput_samples_s"), Dimension::kOther);
  EXPECT_EQ(unit_problem_for("trials.throughput_samples_s", "samples/s"), "");
  EXPECT_NE(unit_problem_for("trials.input_bound_pct", "pct"), "");
  EXPECT_DOUBLE_EQ(from_native(3200, "median", "us"), 3.2);
  EXPECT_DOUBLE_EQ(from_native(4e10, "trials.bytes_per_s", "GB/s"), 40);
  EXPECT_DOUBLE_EQ(from_native(27, "trials.input_bound_pct", "%"), 27);
}

TEST(CheckReference, CommittedReferenceFiles) {
  std::string dir = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/references/";
  EXPECT_EQ(load_reference_file(dir + "tiny-pass.yaml").references.size(), 3u);
  EXPECT_EQ(load_reference_file(dir + "tiny-fail.yaml").expectations.size(), 1u);
  ReferenceFile example = load_reference_file(dir + "ci-example.yaml");
  EXPECT_EQ(example.expectations[0].basis, RatioBasis::kCiLower);
  EXPECT_THROW(load_reference_file(dir + "bad-unknown-key.yaml"), InputError);
  EXPECT_THROW(load_reference_file(dir + "bad-unit.yaml"), InputError);
}
