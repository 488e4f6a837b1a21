// trace.dat option ids (trace-cmd's enum tracecmd_file_options), as napiscope's reader and
// napiscope record's writer use them; napiscope's own are in napiscope/tracedat_writer.h.
#pragma once

#include <cstdint>

namespace napiscope::internal {

constexpr uint16_t kOptionDone = 0;           ///< ends the options (v7: links the next section)
constexpr uint16_t kOptionDate = 1;           ///< a time offset in microseconds, as text
constexpr uint16_t kOptionBuffer = 3;         ///< a buffer instance and where its CPU data is
constexpr uint16_t kOptionTraceClock = 4;     ///< the trace_clock file's text
constexpr uint16_t kOptionUname = 5;          ///< the recording machine's uname
constexpr uint16_t kOptionOffset = 7;         ///< a time offset in nanoseconds, as text
constexpr uint16_t kOptionCpuCount = 8;       ///< the CPU count
constexpr uint16_t kOptionTsc2Nsec = 14;      ///< cycles to nanoseconds: mult and shift
constexpr uint16_t kOptionHeaderInfo = 16;    ///< v7: the header_page section
constexpr uint16_t kOptionFtraceEvents = 17;  ///< v7: the ftrace formats section
constexpr uint16_t kOptionEventFormats = 18;  ///< v7: the event formats section
constexpr uint16_t kOptionCmdlines = 21;      ///< v7: the saved cmdlines section

/// v7: the options from HEADER_INFO to CMDLINES each point at a section.
constexpr uint16_t kOptionFirstSectionRef = kOptionHeaderInfo;
constexpr uint16_t kOptionLastSectionRef = kOptionCmdlines;  ///< see kOptionFirstSectionRef

}  // namespace napiscope::internal
