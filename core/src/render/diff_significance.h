// Whether a change between two traces is more than the samples behind it can explain: 95%
// confidence intervals from order statistics (quantiles, the max) and binomial proportions
// (shares), and a binomial test of two Poisson counts, for `napiscope diff`.
#pragma once

#include <cstdint>
#include <optional>

#include "napiscope/duration_stats.h"

namespace napiscope::internal {

/// What a compared statistic is, for its confidence interval.
enum class Statistic : uint8_t {
  kP50,    ///< the median of `stats`
  kP99,    ///< the 99th percentile of `stats`
  kMax,    ///< the largest of `stats`
  kShare,  ///< a proportion of `samples` trials
  kCount,  ///< a number of events (Poisson)
};

/// One side of a comparison: the value, and what it was computed from.
struct Side {
  double value = 0;
  int64_t samples = -1;                ///< trials behind a share; -1: none
  std::optional<DurationStats> stats;  ///< the distribution behind a quantile or max
};

/// The 95% confidence interval [low, high] of the `p`-quantile (0 < p < 1) of a distribution
/// from `stats` (its count, percentiles and extremes): the order statistics at the binomial
/// ranks, their values interpolated linearly between the known percentiles; high is +infinity
/// when the rank is beyond the count (too few samples to bound it from above).
std::pair<double, double> QuantileInterval(const DurationStats& stats, double p);

/// The k of the exceedance test of a max: with `before` and `after` samples of one
/// distribution, the chance that the k largest of all are all after's is at most 2.5%; 0 when
/// no k is (too few samples).
int64_t ExceedancesNeeded(int64_t before, int64_t after);

/// True when the change from `before` to `after` is beyond what sampling explains at 95%: their
/// intervals do not overlap (counts: an exact binomial test of the two, given their sum); for a max, when after's k-th largest (at least the known
/// percentile at or below its rank) exceeds before's max (or the other way round), k from
/// ExceedancesNeeded. Absent when the statistic has no samples to
/// judge by (a share without trials, a missing distribution).
std::optional<bool> Significant(Statistic statistic, const Side& before, const Side& after);

}  // namespace napiscope::internal
