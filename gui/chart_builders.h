// Qt Charts for the statistics the core computes over a range (napiscope/timeline_stats.h).
// Each function turns one core result into a new QChart; nothing is computed here.
#pragma once

#include <QString>
#include <array>
#include <vector>

#include "napiscope/string_table.h"
#include "napiscope/timeline_stats.h"

class QChart;

namespace napiscope::gui {

/// Stacked bars of raise-to-entry delays per power-of-two bucket, one colour per vector;
/// with timestamps printed to a step (`time_resolution_ns` > 1), without the buckets below it.
QChart* MakeDelayChart(const std::array<LogHistogram, kSoftirqVectorCount>& histograms,
                       const QString& title, int64_t time_resolution_ns = 1);

/// The `max_bars` - 1 busiest CPUs (in CPU order) and one breakdown summing the others
/// (cpu -1, their count in `others`); all CPUs when they are `max_bars` or fewer.
std::vector<CpuTimeBreakdown> TopCpus(const std::vector<CpuTimeBreakdown>& cpus, int max_bars,
                                      int* others);

/// One 100% bar per CPU (the busiest ones and "N others" past `max_bars`): hard IRQ, softirq
/// per vector, task kinds, idle, unknown.
QChart* MakeCpuTimeChart(const std::vector<CpuTimeBreakdown>& cpus, const QString& title,
                         int max_bars = 12);

/// Per thread (the most cross-CPU first, at most `max_threads`): same-CPU and cross-CPU
/// activations.
QChart* MakeActivationChart(const std::vector<ThreadActivations>& threads,
                            const StringTable& strings, int max_threads, const QString& title);

/// Polls per amount of work, the full-budget polls in their own colour.
QChart* MakeNapiWorkChart(const NapiWorkHistogram& histogram, const QString& title);

/// A chart whose events the trace does not hold: its title and, on a line of its own, `why`
/// ("not recorded:<br>no napi:napi_poll events"), no axes.
QChart* MakeNotRecordedChart(const QString& title, const QString& why);

/// "1us", "512ns", "2.1ms": a bucket's lower bound, short enough for an axis.
QString ShortDuration(int64_t ns);

}  // namespace napiscope::gui
