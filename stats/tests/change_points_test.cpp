// Change points (change_points.h): steps found where they are, none on flat or outlier-ridden series, the
// min_relative_change and CI gates, evidence attribution, the last stable segment, fleet changes, argument
// errors and determinism. The detection and false-alarm rates are measured by bench/change_points_sim.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "placebench/stats/change_points.h"

using namespace placebench::stats;

namespace {

// `n` runs at `level`, Gaussian noise of `noise` (fraction of the level), each run's CI +- ci (fraction).
std::vector<SeriesPoint> flat(std::size_t n, double level, double noise, double ci, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<SeriesPoint> s(n);
  for (SeriesPoint& p : s) {
    p.value = level * (1.0 + noise * z(rng));
    p.ci_lower = p.value - ci * level;
    p.ci_upper = p.value + ci * level;
    p.evidence = "e1";
    p.evidence_detail = "driver 550.54; kernel 6.8";
  }
  return s;
}

void step(std::vector<SeriesPoint>& s, std::size_t at, double factor) {
  for (std::size_t i = at; i < s.size(); ++i) {
    s[i].value *= factor;
    s[i].ci_lower *= factor;
    s[i].ci_upper *= factor;
  }
}

void change_evidence(std::vector<SeriesPoint>& s, std::size_t at) {
  for (std::size_t i = at; i < s.size(); ++i) {
    s[i].evidence = "e2";
    s[i].evidence_detail = "driver 560.28; kernel 6.8";
  }
}

}  // namespace

TEST(ChangePoints, KnownStepsAreFoundAtTheirIndex) {
  std::size_t extra = 0;  // each side is scanned again at alpha 0.01: a rare false change is allowed
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::vector<SeriesPoint> s = flat(60, 100.0, 0.02, 0.01, seed);
    step(s, 30, 1.05);
    const auto changes = detect_change_points(s, {});
    ASSERT_GE(changes.size(), 1u) << "seed " << seed;
    extra += changes.size() - 1;
    const ChangePoint& c = changes[0];
    EXPECT_LE(std::abs(static_cast<int>(c.index) - 30), 1) << "seed " << seed;
    EXPECT_NEAR(c.relative_change, 0.05, 0.02);
    EXPECT_NEAR(c.level_before, 100.0, 2.0);
    EXPECT_LE(c.p_value, 0.01);
    EXPECT_FALSE(c.at_evidence_change);
    EXPECT_EQ(c.evidence_change, "");
  }
  EXPECT_LE(extra, 1u);
  std::vector<SeriesPoint> s = flat(100, 100.0, 0.02, 0.01, 11);
  step(s, 30, 1.10);
  step(s, 70, 0.85);
  const auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_NEAR(static_cast<double>(changes[0].index), 30.0, 1.0);
  EXPECT_NEAR(static_cast<double>(changes[1].index), 70.0, 1.0);
  EXPECT_GT(changes[0].relative_change, 0.0);
  EXPECT_LT(changes[1].relative_change, 0.0);
  EXPECT_NEAR(changes[1].level_before, 110.0, 2.0);
}

TEST(ChangePoints, FlatAndOutlierSeriesGiveNone) {
  std::size_t false_changes = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) false_changes += detect_change_points(flat(100, 50.0, 0.02, 0.01, seed), {}).size();
  EXPECT_LE(false_changes, 1u);  // alpha 0.01 per series: 0.3 expected
  std::vector<SeriesPoint> s = flat(80, 50.0, 0.02, 0.01, 99);
  for (std::size_t i : {10u, 40u, 41u, 70u}) s[i].value *= 1.6;  // outliers, not a level change
  EXPECT_TRUE(detect_change_points(s, {}).empty());
  EXPECT_TRUE(detect_change_points(std::vector<SeriesPoint>(40, SeriesPoint{}), {}).empty());  // all equal
  std::vector<SeriesPoint> short_series = flat(5, 50.0, 0.0, 0.0, 1);
  step(short_series, 3, 2.0);
  EXPECT_TRUE(detect_change_points(short_series, {}).empty());  // shorter than 2 * min_segment
}

TEST(ChangePoints, SmallStepsAreGatedByMinRelativeChangeAndByTheRunsCis) {
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.001, 0.001, 3);
  step(s, 30, 1.01);  // 1% at 0.1% noise: clear, but small
  EXPECT_EQ(detect_change_points(s, {}).size(), 1u);
  ChangePointOptions o;
  o.min_relative_change = 0.02;
  EXPECT_TRUE(detect_change_points(s, o).empty());
  // The same points with CIs of +-10%: the runs themselves cannot resolve a 1% shift.
  for (SeriesPoint& p : s) p.ci_lower = p.value - 10.0, p.ci_upper = p.value + 10.0;
  EXPECT_TRUE(detect_change_points(s, {}).empty());
}

TEST(ChangePoints, ChangesAtAnEvidenceChangeAreAttributed) {
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.02, 0.01, 5);
  step(s, 30, 0.94);
  change_evidence(s, 30);
  auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_TRUE(changes[0].at_evidence_change);
  EXPECT_EQ(changes[0].evidence_index, 30u);
  EXPECT_EQ(changes[0].evidence_change, "driver 550.54 -> 560.28");

  std::vector<SeriesPoint> late = flat(60, 100.0, 0.02, 0.01, 5);
  step(late, 30, 0.94);
  change_evidence(late, 31);  // within the tolerance of one run
  changes = detect_change_points(late, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_TRUE(changes[0].at_evidence_change);
  EXPECT_EQ(changes[0].evidence_index, 31u);
  ChangePointOptions exact;
  exact.evidence_tolerance = 0;
  EXPECT_FALSE(detect_change_points(late, exact)[0].at_evidence_change);

  std::vector<SeriesPoint> far = flat(60, 100.0, 0.02, 0.01, 5);
  step(far, 30, 0.94);
  change_evidence(far, 40);
  changes = detect_change_points(far, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_FALSE(changes[0].at_evidence_change);
  EXPECT_EQ(changes[0].evidence_change, "");
}

TEST(ChangePoints, EvidenceMessagesNameWhatChanged) {
  std::vector<SeriesPoint> s = flat(40, 100.0, 0.01, 0.01, 8);
  step(s, 20, 1.2);
  for (std::size_t i = 20; i < s.size(); ++i) {
    s[i].evidence = "e3";
    s[i].evidence_detail = "driver=550.54, kernel: 6.9, numa NPS4";
  }
  auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].evidence_change, "kernel 6.8 -> 6.9, numa (none) -> NPS4");
  for (std::size_t i = 20; i < s.size(); ++i) s[i].evidence_detail = "upgraded";  // free text
  changes = detect_change_points(s, {});
  EXPECT_EQ(changes[0].evidence_change, "driver 550.54; kernel 6.8 -> upgraded");
  for (std::size_t i = 20; i < s.size(); ++i) s[i].evidence_detail = s[0].evidence_detail;  // digest only
  EXPECT_EQ(detect_change_points(s, {})[0].evidence_change, "evidence e1 -> e3");
}

TEST(ChangePoints, LastStableSegmentStartsAtTheLastChange) {
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.02, 0.01, 12);
  step(s, 40, 1.1);
  const auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 1u);
  const StableSegment seg = last_stable_segment(s, changes);
  EXPECT_EQ(seg.first, changes[0].index);
  EXPECT_EQ(seg.runs, 60 - seg.first);
  EXPECT_NEAR(seg.level, 110.0, 2.0);
  EXPECT_GT(seg.spread, 0.5);
  EXPECT_LT(seg.spread, 5.0);
  const StableSegment whole = last_stable_segment(s, {});
  EXPECT_EQ(whole.first, 0u);
  EXPECT_EQ(whole.runs, 60u);
  ChangePoint beyond;
  beyond.index = 61;
  EXPECT_THROW(last_stable_segment(s, std::vector<ChangePoint>{beyond}), std::invalid_argument);
}

TEST(ChangePoints, FleetChangesNeedMostNodesInTheSameDirection) {
  auto change = [](double rel) {
    ChangePoint c;
    c.relative_change = rel;
    return c;
  };
  std::vector<NodeChanges> nodes(10);
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].node = "n" + std::to_string(i);
  for (std::size_t i = 0; i < 6; ++i) {  // six of ten up within an hour of each other: a fleet change
    nodes[i].changes.push_back(change(0.05));
    nodes[i].change_times.push_back(1000.0 + 600.0 * static_cast<double>(i));
  }
  nodes[6].changes.push_back(change(-0.05));  // same moment, other direction: the node's own
  nodes[6].change_times.push_back(1500.0);
  nodes[0].changes.push_back(change(0.05));  // the same node later: alone
  nodes[0].change_times.push_back(1e7);
  const auto fleet = fleet_changes(nodes, {});
  for (std::size_t i = 0; i < 6; ++i) EXPECT_TRUE(fleet[i][0]) << i;
  EXPECT_FALSE(fleet[6][0]);
  EXPECT_FALSE(fleet[0][1]);
  EXPECT_TRUE(fleet[7].empty());
  FleetChangeOptions strict;
  strict.min_share = 0.7;  // 7 of 10 needed, 6 seen
  EXPECT_FALSE(fleet_changes(nodes, strict)[0][0]);
  strict.min_share = 0.5;
  strict.window = 1000.0;  // the six are spread over 3000 s: at most 4 within 1000 s of any one
  EXPECT_FALSE(fleet_changes(nodes, strict)[0][0]);
  const std::vector<NodeChanges> alone{nodes[0]};  // one node is never a fleet
  EXPECT_FALSE(fleet_changes(alone, {})[0][0]);
}

TEST(ChangePoints, InvalidInputThrows) {
  std::vector<SeriesPoint> s = flat(20, 10.0, 0.01, 0.01, 1);
  std::vector<SeriesPoint> bad = s;
  bad[3].value = NAN;
  EXPECT_THROW(detect_change_points(bad, {}), std::invalid_argument);
  bad = s;
  bad[4].ci_lower = bad[4].ci_upper + 1.0;
  try {
    detect_change_points(bad, {});
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("series[4] has an inverted CI"), std::string::npos) << e.what();
  }
  bad = s;
  bad[5].ci_upper = INFINITY;
  EXPECT_THROW(detect_change_points(bad, {}), std::invalid_argument);
  ChangePointOptions o;
  o.alpha = 0.0;
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  o = {};
  o.min_segment = 0;
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  o = {};
  o.permutations = 50;  // 1/51 > alpha 0.01: no change could ever be significant
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  o = {};
  o.min_relative_change = -0.1;
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  NodeChanges n;
  n.changes.resize(2);
  n.change_times = {1.0};
  EXPECT_THROW(fleet_changes(std::vector<NodeChanges>{n}, {}), std::invalid_argument);
  FleetChangeOptions f;
  f.min_share = 0.0;
  EXPECT_THROW(fleet_changes(std::vector<NodeChanges>{}, f), std::invalid_argument);
}

TEST(ChangePoints, ResultsAreDeterministicForASeed) {
  std::vector<SeriesPoint> s = flat(120, 100.0, 0.02, 0.01, 21);
  step(s, 50, 1.04);
  step(s, 90, 0.97);
  const auto a = detect_change_points(s, {}), b = detect_change_points(s, {});
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
    EXPECT_EQ(a[i].level_after, b[i].level_after);
  }
}

// A noise-free or nearly constant series: the noise scale must come from within the segments (and the runs'
// CIs), not from the spread of the whole series, which the step itself makes (or which is 0); the step must
// be found where it is, however short the series.
TEST(ChangePoints, StepsOnNoiseFreeSeriesAreFoundWhereTheyAre) {
  auto check = [](std::size_t n, std::size_t at, double factor, double noise, double ci) {
    std::vector<SeriesPoint> s = flat(n, 100.0, noise, ci, 7);
    step(s, at, factor);
    const auto changes = detect_change_points(s, {});
    ASSERT_EQ(changes.size(), 1u) << n << " runs, step x" << factor << " at " << at << ", noise " << noise
                                  << ", ci " << ci;
    EXPECT_EQ(changes[0].index, at) << n << " runs, step x" << factor << ", noise " << noise << ", ci " << ci;
    EXPECT_NEAR(changes[0].relative_change, factor - 1.0, 1e-6);
    EXPECT_LE(changes[0].p_value, 0.01);
  };
  for (const double noise : {0.0, 1e-9})
    for (const double ci : {0.0, 1e-9})
      for (const double factor : {1.3, 0.7}) {
        for (const std::size_t n : {6u, 10u})
          for (std::size_t at = 3; at + 3 <= n; ++at) check(n, at, factor, noise, ci);
        for (const std::size_t at : {3u, 15u, 30u, 47u, 54u, 57u}) check(60, at, factor, noise, ci);
      }
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.0, 0.0, 7);  // two steps, exactly constant between
  step(s, 20, 1.3);
  step(s, 40, 0.5);
  const auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 20u);
  EXPECT_EQ(changes[1].index, 40u);
}

TEST(ChangePoints, ConstantSeriesGiveNone) {
  for (const std::size_t n : {6u, 10u, 60u}) {
    EXPECT_TRUE(detect_change_points(flat(n, 100.0, 0.0, 0.0, 1), {}).empty()) << n;
    EXPECT_TRUE(detect_change_points(flat(n, 100.0, 0.0, 0.01, 1), {}).empty()) << n;
    // Noise far below the runs' CIs: nothing the runs can resolve.
    EXPECT_TRUE(detect_change_points(flat(n, 100.0, 1e-9, 0.01, 1), {}).empty()) << n;
  }
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.0, 0.0, 1);
  s[20].value = 130.0;  // one outlier, or two together, on an exactly constant series: not a level change
  s[20].ci_lower = s[20].ci_upper = 130.0;
  EXPECT_TRUE(detect_change_points(s, {}).empty());
  s[21] = s[20];
  EXPECT_TRUE(detect_change_points(s, {}).empty());
  std::vector<SeriesPoint> short_series = flat(8, 100.0, 0.0, 0.0, 1);
  short_series[3].value = short_series[4].value = 130.0;
  EXPECT_TRUE(detect_change_points(short_series, {}).empty());
}

// The recent stage: a step in the last 3-5 runs, which binary segmentation over all splits often misses,
// is found where it is; it is off with recent_runs 0; a single outlier at the end is no change.
TEST(ChangePoints, RecentStepsAreFoundByTheRecentStage) {
  ChangePointOptions off;
  off.recent_runs = 0;
  std::size_t with_stage = 0, without = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::vector<SeriesPoint> s = flat(60, 100.0, 0.02, 0.01, seed);
    step(s, 57, 1.06);  // the last 3 runs at +6% (3 noise scales)
    for (const ChangePoint& c : detect_change_points(s, {}))
      if (c.index >= 54 && c.index <= 58) {
        ++with_stage;
        EXPECT_GT(c.relative_change, 0.0);
      }
    for (const ChangePoint& c : detect_change_points(s, off)) without += c.index >= 54 && c.index <= 58 ? 1 : 0;
  }
  EXPECT_GE(with_stage, 16u) << "without the stage: " << without;
  EXPECT_GT(with_stage, without);
  std::vector<SeriesPoint> s = flat(60, 100.0, 0.0, 0.0, 1);  // noise-free: exactly at the step
  step(s, 57, 0.9);
  auto changes = detect_change_points(s, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 57u);
  std::size_t false_changes = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::vector<SeriesPoint> o = flat(60, 100.0, 0.02, 0.01, 100 + seed);
    o.back().value *= 1.5;  // one outlier as the last run
    false_changes += detect_change_points(o, {}).size();
  }
  EXPECT_LE(false_changes, 1u);
}

TEST(ChangePoints, RecentStageOptionsAreChecked) {
  const std::vector<SeriesPoint> s = flat(20, 10.0, 0.01, 0.01, 1);
  ChangePointOptions o;
  o.recent_alpha = 1.0;
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  o = {};
  o.recent_permutations = 99;  // 1/100 > recent_alpha 0.007
  EXPECT_THROW(detect_change_points(s, o), std::invalid_argument);
  o.recent_runs = 0;  // the stage off: its permutations do not matter
  EXPECT_NO_THROW(detect_change_points(s, o));
}
