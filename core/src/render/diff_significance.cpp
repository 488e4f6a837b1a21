#include "render/diff_significance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace napiscope::internal {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kZ = 1.959964;  // two-sided 95%
constexpr double kTail = 0.025;  // each side of the 95%

// Nearest rank of the per-mille quantile among `n`, as DurationStats computes it.
int64_t RankOf(int64_t n, int64_t per_mille) { return (n * per_mille + 999) / 1000; }

// The ranks the stats know (min, p50, p90, p99, p99.9, max) with their values, ascending
// whatever fields were left 0.
std::vector<std::pair<int64_t, double>> KnownRanks(const DurationStats& stats) {
  int64_t n = stats.count;
  std::vector<std::pair<int64_t, double>> known = {
      {1, static_cast<double>(stats.min_ns)},
      {RankOf(n, 500), static_cast<double>(stats.p50_ns)},
      {RankOf(n, 900), static_cast<double>(stats.p90_ns)},
      {RankOf(n, 990), static_cast<double>(stats.p99_ns)},
      {RankOf(n, 999), static_cast<double>(stats.p999_ns)},
      {n, static_cast<double>(stats.max_ns)}};
  for (size_t i = 1; i < known.size(); ++i) {
    known[i].second = std::max(known[i].second, known[i - 1].second);
  }
  return known;
}

// The value of rank `rank` (1-based) among stats.count samples: exact at the known ranks,
// linear between them.
double ValueAtRank(const DurationStats& stats, int64_t rank) {
  std::vector<std::pair<int64_t, double>> known = KnownRanks(stats);
  if (rank <= 1) return known.front().second;
  for (size_t i = 1; i < known.size(); ++i) {
    auto [rank_a, value_a] = known[i - 1];
    auto [rank_b, value_b] = known[i];
    if (rank > rank_b) continue;
    if (rank_b == rank_a) return value_b;
    double along = static_cast<double>(rank - rank_a) / static_cast<double>(rank_b - rank_a);
    return value_a + (value_b - value_a) * along;
  }
  return known.back().second;
}

// A value the sample of rank `rank` is at least: the known rank at or below it.
double AtLeastAtRank(const DurationStats& stats, int64_t rank) {
  double value = 0;
  for (auto [known_rank, known_value] : KnownRanks(stats)) {
    if (known_rank <= rank) value = known_value;
  }
  return value;
}

// The ranks [l, u] (1-based; l may be 0 and u beyond n) of the order statistics that bound
// the p-quantile of n samples at 95%: P(Binomial(n, p) < l) <= 2.5% <= P(Binomial(n, p) >= u).
std::pair<int64_t, int64_t> QuantileRanks(int64_t n, double p) {
  double mean = static_cast<double>(n) * p;
  double spread = std::sqrt(mean * (1 - p));
  if (n > 100'000) {  // the normal approximation is exact enough there
    return {static_cast<int64_t>(std::floor(mean - kZ * spread)),
            static_cast<int64_t>(std::ceil(mean + kZ * spread)) + 1};
  }
  double log_p = std::log(p), log_q = std::log1p(-p);
  double log_n_factorial = std::lgamma(static_cast<double>(n) + 1);
  int64_t low = 0, high = n + 1;
  double below = 0;  // P(B < k)
  bool low_found = false;
  for (int64_t k = 0; k <= n; ++k) {
    double kd = static_cast<double>(k);
    double pmf = std::exp(log_n_factorial - std::lgamma(kd + 1) -
                          std::lgamma(static_cast<double>(n - k) + 1) + kd * log_p +
                          static_cast<double>(n - k) * log_q);
    if (!low_found && below + pmf > kTail) {  // P(B < k + 1) exceeds the tail: l = k
      low = k;
      low_found = true;
    }
    below += pmf;
    if (below >= 1 - kTail) {  // P(B < k + 1) >= 97.5%: u = k + 1
      high = k + 1;
      break;
    }
  }
  return {low, high};
}

bool Apart(std::pair<double, double> a, std::pair<double, double> b) {
  return a.second < b.first || b.second < a.first;
}

std::pair<double, double> WilsonInterval(double share, int64_t trials) {
  double n = static_cast<double>(trials);
  double z2 = kZ * kZ;
  double centre = (share + z2 / (2 * n)) / (1 + z2 / n);
  double half = kZ * std::sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {centre - half, centre + half};
}

// Two Poisson counts of one rate: given their sum n, the smaller is Binomial(n, 1/2); true
// when the two-sided chance of one as uneven is below 5%.
bool CountsDiffer(double before, double after) {
  int64_t n = std::llround(before + after);
  int64_t fewer = std::llround(std::min(before, after));
  if (n <= 0) return false;
  double log_half = std::log(0.5) * static_cast<double>(n);
  double log_n_factorial = std::lgamma(static_cast<double>(n) + 1);
  double tail = 0;  // P(X <= fewer)
  for (int64_t k = 0; k <= fewer; ++k) {
    tail += std::exp(log_n_factorial - std::lgamma(static_cast<double>(k) + 1) -
                     std::lgamma(static_cast<double>(n - k) + 1) + log_half);
  }
  return 2 * tail < 2 * kTail;
}

// True when `higher`'s k-th largest (k from ExceedancesNeeded; known no higher than the
// percentile at or below its rank) exceeds `lower`'s max. A max is one sample: it counts only
// when enough others are beyond the other trace's.
bool MaxExceeds(const DurationStats& higher, const DurationStats& lower) {
  int64_t k = ExceedancesNeeded(lower.count, higher.count);
  return k > 0 && AtLeastAtRank(higher, higher.count - k + 1) > static_cast<double>(lower.max_ns);
}

}  // namespace

std::pair<double, double> QuantileInterval(const DurationStats& stats, double p) {
  if (stats.count <= 0) return {0, kInfinity};
  auto [low, high] = QuantileRanks(stats.count, p);
  return {low < 1 ? 0 : ValueAtRank(stats, low),
          high > stats.count ? kInfinity : ValueAtRank(stats, high)};
}

int64_t ExceedancesNeeded(int64_t before, int64_t after) {
  double chance = 1;
  for (int64_t k = 1; k <= after; ++k) {
    chance *= static_cast<double>(after - k + 1) / static_cast<double>(before + after - k + 1);
    if (chance <= kTail) return k;
  }
  return 0;
}

std::optional<bool> Significant(Statistic statistic, const Side& before, const Side& after) {
  switch (statistic) {
    case Statistic::kP50:
    case Statistic::kP99: {
      if (!before.stats || !after.stats) return std::nullopt;
      double p = statistic == Statistic::kP50 ? 0.5 : 0.99;
      return Apart(QuantileInterval(*before.stats, p), QuantileInterval(*after.stats, p));
    }
    case Statistic::kMax:
      if (!before.stats || !after.stats) return std::nullopt;
      return after.value > before.value ? MaxExceeds(*after.stats, *before.stats)
                                        : MaxExceeds(*before.stats, *after.stats);
    case Statistic::kShare:
      if (before.samples <= 0 || after.samples <= 0) return std::nullopt;
      return Apart(WilsonInterval(before.value, before.samples),
                   WilsonInterval(after.value, after.samples));
    case Statistic::kCount:
      return CountsDiffer(before.value, after.value);
  }
  return std::nullopt;
}

}  // namespace napiscope::internal
