#include "napiscope/event_sink.h"

namespace napiscope {

void FanoutSink::OnBegin(const TraceContext& context) {
  for (EventSink* sink : sinks_) sink->OnBegin(context);
}

void FanoutSink::OnEvent(const Event& event) {
  for (EventSink* sink : sinks_) sink->OnEvent(event);
}

void FanoutSink::OnEnd() {
  for (EventSink* sink : sinks_) sink->OnEnd();
}

std::string_view TraceFormatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kTraceDat:
      return "trace.dat";
    case TraceFormat::kFtraceText:
      return "ftrace text";
    case TraceFormat::kTraceCmdText:
      return "trace-cmd report text";
    case TraceFormat::kLiveTracefs:
      return "live tracefs";
    case TraceFormat::kPerfScriptText:
      return "perf script text";
  }
  return "?";
}

}  // namespace napiscope
