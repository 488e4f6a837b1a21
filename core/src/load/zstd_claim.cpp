#include "load/zstd_claim.h"

#include <algorithm>

#include <absl/strings/str_cat.h>
#include <zstd.h>

namespace napiscope::internal {

std::string ZstdClaimProblem(const void* data, size_t size, uint64_t claimed) {
  const unsigned long long frame = ZSTD_getFrameContentSize(data, size);
  if (frame == ZSTD_CONTENTSIZE_ERROR) return "its data is no zstd frame";
  if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != claimed) {
    return absl::StrCat("its zstd frame holds ", frame, " bytes");
  }
  const uint64_t bound = std::max<uint64_t>(kMinUncompressedBound, size * kMaxCompressionRatio);
  if (claimed > bound) {
    return absl::StrCat("that is more than ", kMaxCompressionRatio, " times its ", size,
                        " compressed bytes");
  }
  return "";
}

}  // namespace napiscope::internal
