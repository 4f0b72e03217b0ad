// The detectors placebench-change-points-sim compares the shipped one with (bench only, not shipped):
// a Gaussian t-test binary segmentation with a Bonferroni threshold over the splits (the textbook CUSUM
// of a mean with unknown variance), and Pettitt's rank test in binary segmentation with its asymptotic
// p-value. Both return the change indices (first run of each new segment) in order.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace placebench::bench {

std::vector<std::size_t> ttest_binary_segmentation(std::span<const double> values, double alpha, std::size_t min_segment);
std::vector<std::size_t> pettitt_binary_segmentation(std::span<const double> values, double alpha, std::size_t min_segment);

}  // namespace placebench::bench
