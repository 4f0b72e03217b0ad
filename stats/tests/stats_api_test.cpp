// The statistics API's contracts: argument errors, small-sample flags, summaries and the JSON form.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "placebench/stats/json.h"
#include "placebench/stats/normal.h"

using namespace placebench::stats;

TEST(StatsApi, ErrorsNameTheProblem) {
  const std::vector<double> empty, one{1.0}, two{1.0, 2.0}, bad{1.0, -1.0}, nan{1.0, NAN};
  EXPECT_THROW(quantile_ci(empty, 0.5, 0.95), std::invalid_argument);
  EXPECT_THROW(quantile_ci(two, 0.5, 1.0), std::invalid_argument);
  EXPECT_THROW(quantile_ci(two, 0.5, 0.0), std::invalid_argument);
  EXPECT_THROW(quantile_ci(two, 1.0, 0.95), std::invalid_argument);
  EXPECT_THROW(quantile_ci(nan, 0.5, 0.95), std::invalid_argument);
  EXPECT_THROW(quantile_ci_sorted(std::vector<double>{2.0, 1.0}, 0.5, 0.95), std::invalid_argument);
  EXPECT_THROW(summarize(empty, 0.95), std::invalid_argument);
  EXPECT_THROW(hodges_lehmann_one_sample(empty, 0.95), std::invalid_argument);
  EXPECT_THROW(hodges_lehmann_one_sample(two, 1.5), std::invalid_argument);
  EXPECT_THROW(hodges_lehmann_two_sample(two, empty, 0.95), std::invalid_argument);
  EXPECT_THROW(wilcoxon_signed_rank(empty), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u(one, empty), std::invalid_argument);
  EXPECT_THROW(compare_paired(two, one, 0.95), std::invalid_argument);
  EXPECT_THROW(compare_paired(two, bad, 0.95), std::invalid_argument);
  EXPECT_THROW(compare_unpaired(bad, two, 0.95), std::invalid_argument);
  EXPECT_THROW(compare_paired(two, two, -0.1), std::invalid_argument);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
  try {
    compare_paired(two, one, 0.95);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("baseline has 2 rounds but arm has 1"), std::string::npos) << e.what();
  }
  try {
    compare_paired(two, bad, 0.95);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("arm[1] is -1"), std::string::npos) << e.what();
  }
}

TEST(StatsApi, TooFewObservationsGiveTheFullRangeAndAFlag) {
  const QuantileCi q = quantile_ci({3.0, 1.0, 2.0}, 0.5, 0.95);
  EXPECT_FALSE(q.coverage_met);
  EXPECT_EQ(q.lower_rank, 1);
  EXPECT_EQ(q.upper_rank, 3);
  EXPECT_EQ(q.lower, 1.0);
  EXPECT_EQ(q.upper, 3.0);
  EXPECT_NEAR(q.achieved_confidence, 0.75, 1e-12);  // 1 - 2 (1/2)^3
  EXPECT_EQ(q.estimate, 2.0);

  const ShiftCi s = hodges_lehmann_one_sample(std::vector<double>{0.1, 0.2, 0.4, 0.3, 0.5}, 0.95);
  EXPECT_FALSE(s.coverage_met);  // P(T+ = 0) = 1/32 > 0.025
  EXPECT_EQ(s.lower_rank, 1);
  EXPECT_EQ(s.upper_rank, 15);
  EXPECT_DOUBLE_EQ(s.lower, 0.1);
  EXPECT_DOUBLE_EQ(s.upper, 0.5);
  EXPECT_NEAR(s.achieved_confidence, 1 - 2.0 / 32, 1e-15);

  const ShiftCi at_90 = hodges_lehmann_one_sample(std::vector<double>{0.1, 0.2, 0.4, 0.3, 0.5}, 0.9);
  EXPECT_TRUE(at_90.coverage_met);  // 1/32 <= 0.05
  EXPECT_DOUBLE_EQ(at_90.estimate, 0.3);
}

TEST(StatsApi, RankTestEdgeCases) {
  const RankTest zeros = wilcoxon_signed_rank(std::vector<double>{0.0, 0.0, 0.0});
  EXPECT_EQ(zeros.n_used, 0u);
  EXPECT_EQ(zeros.p_value, 1.0);
  const RankTest tied = mann_whitney_u(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1});
  EXPECT_EQ(tied.p_value, 1.0);
  EXPECT_EQ(tied.statistic, 3.0);
  const RankTest approx =
      mann_whitney_u(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1}, Method::kNormalApprox);
  EXPECT_EQ(approx.p_value, 1.0);
  EXPECT_THROW(wilcoxon_signed_rank(std::vector<double>(500, 1.0), Method::kExact), std::invalid_argument);
}

TEST(StatsApi, SummaryOfASample) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const SampleSummary s = summarize(v, 0.95);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_NEAR(s.stddev, std::sqrt(100.0 * 101 / 12), 1e-12);
  EXPECT_DOUBLE_EQ(s.median.estimate, 50.5);
  EXPECT_DOUBLE_EQ(s.p90.estimate, 90.1);
  EXPECT_DOUBLE_EQ(s.p99.estimate, 99.01);
  EXPECT_LE(s.median.lower, 50.5);
  EXPECT_GE(s.median.upper, 50.5);
  EXPECT_EQ(s.median.method, Method::kNormalApprox);
  EXPECT_EQ(s.p99.method, Method::kExact);  // n q (1 - q) = 0.99 < 10
}

TEST(StatsApi, JsonCarriesEveryFieldAndNullForInfinity) {
  const std::vector<double> base{10, 11, 12}, arm{9, 10, 11};
  const PairedComparison c = compare_paired(base, arm, 0.95);
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("rounds"), 3);
  EXPECT_EQ(j.at("log_ratio").at("method"), "exact");
  EXPECT_EQ(j.at("log_ratio").at("coverage_met"), false);
  EXPECT_TRUE(j.at("ratio_pct").at("half_width").is_null());
  EXPECT_EQ(j.at("wilcoxon").at("method"), "exact");
  const nlohmann::json q = quantile_ci({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}, 0.5, 0.9);
  for (const char* key : {"q", "confidence", "n", "estimate", "lower", "upper", "lower_rank", "upper_rank",
                          "achieved_confidence", "coverage_met", "method"})
    EXPECT_TRUE(q.contains(key)) << key;
  const nlohmann::json h = holm_adjust(std::vector<double>{0.01, 0.2}, 0.05);
  EXPECT_EQ(h.at("reject"), nlohmann::json::array({true, false}));
  SequentialPlan plan;
  plan.looks = {3};
  const nlohmann::json look = evaluate_look(base, arm, plan);
  EXPECT_EQ(look.at("stop_reason"), "max_rounds");
  EXPECT_TRUE(look.at("at_planned_look").get<bool>());
}
