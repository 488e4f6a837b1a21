// The fuzz targets' bodies, shared by the libFuzzer binaries (NAPISCOPE_FUZZ) and by the
// regression test that replays the corpus and every crash ever found in a normal build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace napiscope::fuzz {

/// A fuzz target: takes any bytes; aborts (a finding) when napiscope breaks a promise.
using Entry = void (*)(const uint8_t* data, size_t size);

/// The bytes as a file (ftrace text, compressed or not) through LoadTrace and the analyses.
void FuzzTraceText(const uint8_t* data, size_t size);

/// The bytes as a trace.dat file through LoadTrace and the analyses.
void FuzzTraceDat(const uint8_t* data, size_t size);

/// The bytes decoded into events of any kind, order, pid and CPU, fed to the analysis
/// pipeline, a context tracker (queried after every event) and the GUI's timeline builder.
void FuzzEventSequence(const uint8_t* data, size_t size);

/// The bytes as a `napiscope check` config file: TOML, or JSON when the first byte is odd.
void FuzzCheckConfig(const uint8_t* data, size_t size);

/// The bytes as what `record` gets from the kernel, through its trace.dat writer: byte 0 the
/// CPU count (1 + b % 4; bit 7 marks the file as cut short), byte 1 which embedded event
/// formats go in the header, the rest ring-buffer pages dealt to the CPUs in turn. The writer
/// must take them and the file must load (warning when marked) or fail in one line.
void FuzzRecordWriter(const uint8_t* data, size_t size);

/// The entry of target `name` ("trace_text", "trace_dat", "event_sequence", "check_config",
/// "record_writer"), or nullptr.
Entry EntryNamed(std::string_view name);

}  // namespace napiscope::fuzz
