// gzip (zlib), zstd and xz (liblzma) stream decompressors for text traces.
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <absl/strings/str_cat.h>

#include "load/text_input.h"

namespace napiscope::internal {
namespace {

class GzipDecompressor : public Decompressor {
 public:
  GzipDecompressor() {
    // 15 + 32: any window size, and accept both gzip and zlib headers.
    ok_ = inflateInit2(&stream_, 15 + 32) == Z_OK;
  }
  ~GzipDecompressor() override { inflateEnd(&stream_); }

  absl::Status Run(std::string_view* in, bool input_done, char* out, size_t out_size,
                   size_t* produced, bool* clean_end) override {
    *produced = 0;
    if (!ok_) return absl::InternalError("zlib could not be initialised");
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in->data()));
    stream_.avail_in = static_cast<uInt>(std::min<size_t>(in->size(), 1u << 30));
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(out_size, 1u << 30));
    size_t before_in = stream_.avail_in;
    int result = inflate(&stream_, Z_NO_FLUSH);
    size_t used = before_in - stream_.avail_in;
    in->remove_prefix(used);
    *produced = out_size - stream_.avail_out;
    if (used > 0) member_ended_ = false;
    if (result == Z_STREAM_END) {
      // gzip files may hold several members one after the other (cat a.gz b.gz).
      member_ended_ = true;
      inflateReset(&stream_);
    } else if (result != Z_OK && result != Z_BUF_ERROR) {
      return absl::DataLossError(
          absl::StrCat("gzip data is corrupt (", stream_.msg ? stream_.msg : "zlib error", ")"));
    }
    *clean_end = input_done && in->empty() && member_ended_;
    return absl::OkStatus();
  }

 private:
  z_stream stream_{};
  bool ok_ = false;
  bool member_ended_ = false;
};

class ZstdDecompressor : public Decompressor {
 public:
  ZstdDecompressor() : context_(ZSTD_createDStream()) {}
  ~ZstdDecompressor() override { ZSTD_freeDStream(context_); }

  absl::Status Run(std::string_view* in, bool input_done, char* out, size_t out_size,
                   size_t* produced, bool* clean_end) override {
    ZSTD_inBuffer input{in->data(), in->size(), 0};
    ZSTD_outBuffer output{out, out_size, 0};
    size_t result = ZSTD_decompressStream(context_, &output, &input);
    if (ZSTD_isError(result)) {
      return absl::DataLossError(
          absl::StrCat("zstd data is corrupt (", ZSTD_getErrorName(result), ")"));
    }
    in->remove_prefix(input.pos);
    *produced = output.pos;
    // 0 means a frame is complete and fully flushed; zstd continues into the next frame.
    if (input.pos > 0 || output.pos > 0) frame_ended_ = result == 0;
    *clean_end = input_done && in->empty() && frame_ended_;
    return absl::OkStatus();
  }

 private:
  ZSTD_DStream* context_;
  bool frame_ended_ = false;
};

class XzDecompressor : public Decompressor {
 public:
  XzDecompressor() {
    ok_ = lzma_stream_decoder(&stream_, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
  }
  ~XzDecompressor() override { lzma_end(&stream_); }

  absl::Status Run(std::string_view* in, bool input_done, char* out, size_t out_size,
                   size_t* produced, bool* clean_end) override {
    *produced = 0;
    *clean_end = false;
    if (!ok_) return absl::InternalError("liblzma could not be initialised");
    if (ended_) {
      *clean_end = true;
      return absl::OkStatus();
    }
    stream_.next_in = reinterpret_cast<const uint8_t*>(in->data());
    stream_.avail_in = in->size();
    stream_.next_out = reinterpret_cast<uint8_t*>(out);
    stream_.avail_out = out_size;
    // LZMA_CONCATENATED only reports the end after LZMA_FINISH says no more input comes.
    lzma_ret result = lzma_code(&stream_, input_done ? LZMA_FINISH : LZMA_RUN);
    in->remove_prefix(in->size() - stream_.avail_in);
    *produced = out_size - stream_.avail_out;
    if (result == LZMA_STREAM_END) {
      ended_ = true;
      *clean_end = true;
    } else if (result != LZMA_OK && !(result == LZMA_BUF_ERROR && input_done)) {
      return absl::DataLossError(absl::StrCat("xz data is corrupt (liblzma error ", result, ")"));
    }
    return absl::OkStatus();
  }

 private:
  lzma_stream stream_ = LZMA_STREAM_INIT;
  bool ok_ = false;
  bool ended_ = false;
};

}  // namespace

TextCompression CompressionOf(std::string_view head) {
  if (head.starts_with("\x1f\x8b")) return TextCompression::kGzip;
  if (head.starts_with("\x28\xb5\x2f\xfd")) return TextCompression::kZstd;
  if (head.starts_with(std::string_view("\xfd"
                                        "7zXZ\0",
                                        6)))
    return TextCompression::kXz;
  return TextCompression::kNone;
}

std::string_view UnreadPackingOf(std::string_view head) {
  if (head.starts_with("BZh")) return "bzip2";
  if (head.starts_with("\x04\x22\x4d\x18")) return "lz4";
  if (head.starts_with("PK\x03\x04")) return "zip";
  if (head.starts_with("7z\xbc\xaf\x27\x1c")) return "7z";
  if (head.size() > 262 && head.substr(257, 5) == "ustar") return "tar";
  return "";
}

std::string_view CompressionName(TextCompression compression) {
  switch (compression) {
    case TextCompression::kGzip:
      return "gzip";
    case TextCompression::kZstd:
      return "zstd";
    case TextCompression::kXz:
      return "xz";
    default:
      return "";
  }
}

std::unique_ptr<Decompressor> MakeDecompressor(TextCompression compression) {
  switch (compression) {
    case TextCompression::kGzip:
      return std::make_unique<GzipDecompressor>();
    case TextCompression::kZstd:
      return std::make_unique<ZstdDecompressor>();
    case TextCompression::kXz:
      return std::make_unique<XzDecompressor>();
    default:
      return nullptr;
  }
}

std::string DecompressPrefix(std::string_view head, size_t max_bytes) {
  std::unique_ptr<Decompressor> decompressor = MakeDecompressor(CompressionOf(head));
  if (!decompressor) return std::string(head.substr(0, max_bytes));
  std::string out(max_bytes, '\0');
  size_t filled = 0;
  while (filled < max_bytes) {
    size_t produced = 0;
    bool clean_end = false;
    size_t before = head.size();
    if (!decompressor
             ->Run(&head, false, out.data() + filled, max_bytes - filled, &produced, &clean_end)
             .ok()) {
      break;
    }
    filled += produced;
    if (produced == 0 && head.size() == before) break;
  }
  out.resize(filled);
  return out;
}

}  // namespace napiscope::internal
