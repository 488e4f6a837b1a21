// How much a zstd-compressed part of a trace.dat may claim to decompress to: a size read from
// the file is believed only as far as the compressed bytes can back it, so a header's claim
// never decides how much memory is taken.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace napiscope::internal {

/// Real sections and chunks decompress to 2 to 17 times their size: a claim past this many
/// times the compressed bytes (and past kMinUncompressedBound) is corrupt.
constexpr uint64_t kMaxCompressionRatio = 256;

/// A claim up to this size is never refused for its ratio (a small, very repetitive part).
constexpr uint64_t kMinUncompressedBound = 1 << 20;

/// Empty when `claimed` uncompressed bytes are backed by the zstd frame of `size` bytes at
/// `data`: its header's content size, when it gives one, equals the claim, and the claim is
/// at most kMaxCompressionRatio times `size` or kMinUncompressedBound. Else what is wrong,
/// as the end of a sentence ("its zstd frame holds 4096 bytes", "that is more than 256 times
/// its 1659 compressed bytes"; trace-cmd's frames do not say their size).
std::string ZstdClaimProblem(const void* data, size_t size, uint64_t claimed);

}  // namespace napiscope::internal
