#include "range_analysis.h"

#include "napiscope/analysis_session.h"

namespace napiscope::gui {

Report AnalyseRange(const LoadedTrace& trace, TimestampNs from_ns, TimestampNs to_ns) {
  AnalysisOptions options;
  options.window.from_ns = from_ns;
  options.window.to_ns = to_ns;
  AnalysisSession session(options);
  session.OnBegin(trace.context);
  // Events before the window build the state (who runs, what is pending) the analyses need;
  // what begins inside the window counts.
  trace.events.Scan(0, trace.events.size(), [&](uint64_t, const Event& event) {
    session.OnEvent(event);
    return true;
  });
  session.OnEnd();
  return session.Finish(trace.context);
}

}  // namespace napiscope::gui
