#include "load/text_loader.h"

namespace napiscope::internal {

bool LooksLikeTraceText(std::string_view head, TraceFormat* format) {
  (void)head;
  (void)format;
  return false;
}

absl::Status LoadTraceText(const std::string& path, TraceContext& context, EventSink& sink,
                           const LoadOptions& options) {
  (void)path;
  (void)context;
  (void)sink;
  (void)options;
  return absl::UnimplementedError("text traces are not supported yet");
}

}  // namespace napiscope::internal
