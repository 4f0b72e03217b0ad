// Decisions from a ratio CI: the per-arm verdict against an equivalence margin, and the multiplicity
// adjustment across several classes (docs/statistics.md, "Verdicts" and "Several classes").
#pragma once
#include <span>
#include <string_view>
#include <vector>

namespace placebench::stats {

// For a time-like statistic (higher_is_better = false) smaller is faster; for a throughput-like one
// (higher_is_better = true) larger is "faster". With the ratio CI [lo, hi] in percent and margin m >= 0:
//   faster:       hi < -m   (time)      lo > +m   (throughput)
//   slower:       lo > +m   (time)      hi < -m   (throughput)
//   equivalent:   -m <= lo and hi <= m
//   inconclusive: otherwise (the CI overlaps a margin boundary)
enum class Verdict { kFaster, kSlower, kEquivalent, kInconclusive };

std::string_view to_string(Verdict verdict);

// Throws std::invalid_argument when lo > hi, a bound is NaN, or margin_pct < 0 / not finite.
Verdict classify_verdict(double lower_pct, double upper_pct, double margin_pct, bool higher_is_better = false);

// Holm's step-down procedure (Holm 1979, Scand. J. Statist. 6:65-70) on k p-values at family level alpha:
// sort p ascending; the class at step s (1-based) is tested at level alpha / (k - s + 1) and rejected iff it
// and every earlier step pass. adjusted_p[s] = max over steps <= s of min(1, (k - t + 1) p_(t)).
struct HolmAdjustment {
  double alpha = 0.0;
  std::vector<double> adjusted_p;       // per class, in the input order
  std::vector<bool> reject;             // H0 "no difference from baseline" rejected at family level alpha
  std::vector<int> step;                // 1-based position of the class in the step-down order
  std::vector<double> step_confidence;  // 1 - alpha / (k - step + 1): the level that class's test used
};

// Throws std::invalid_argument: empty list, p outside [0, 1] or NaN, alpha outside (0, 1).
HolmAdjustment holm_adjust(std::span<const double> p_values, double alpha);

// Per-class CI confidence for simultaneous coverage of k classes: 1 - (1 - confidence) / k (Bonferroni).
// Verdicts use these CIs; Holm's step levels do not give simultaneous CIs (see docs/statistics.md).
double bonferroni_confidence(double confidence, int classes);

}  // namespace placebench::stats
