// The field numbers and enum values of proto/perfetto_trace.proto (Perfetto's own) that the
// export encodes, one namespace per message. The .proto stays the schema: a test checks every
// number here against the message descriptors protoc generates from it.
#pragma once

#include <cstdint>

namespace napiscope::perfetto_export::fields {

/// perfetto.protos.Trace
namespace trace {
inline constexpr uint32_t kPacket = 1;  ///< repeated TracePacket
}  // namespace trace

/// perfetto.protos.TracePacket
namespace packet {
inline constexpr uint32_t kFtraceEvents = 1;              ///< FtraceEventBundle
inline constexpr uint32_t kTimestamp = 8;                 ///< uint64
inline constexpr uint32_t kTrustedPacketSequenceId = 10;  ///< uint32
inline constexpr uint32_t kTrackEvent = 11;               ///< TrackEvent
inline constexpr uint32_t kInternedData = 12;             ///< InternedData
inline constexpr uint32_t kSequenceFlags = 13;            ///< uint32
inline constexpr uint32_t kTrackDescriptor = 60;          ///< TrackDescriptor
/// TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED
inline constexpr uint32_t kSeqIncrementalStateCleared = 1;
/// TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE
inline constexpr uint32_t kSeqNeedsIncrementalState = 2;
}  // namespace packet

/// perfetto.protos.InternedData and its entries (EventCategory, EventName, DebugAnnotationName:
/// each an iid and a name)
namespace interned {
inline constexpr uint32_t kEventCategories = 1;      ///< repeated EventCategory
inline constexpr uint32_t kEventNames = 2;           ///< repeated EventName
inline constexpr uint32_t kDebugAnnotationNames = 3; ///< repeated DebugAnnotationName
inline constexpr uint32_t kIid = 1;                  ///< the entry's iid: uint64
inline constexpr uint32_t kName = 2;                 ///< the entry's string
}  // namespace interned

/// perfetto.protos.FtraceEventBundle
namespace bundle {
inline constexpr uint32_t kCpu = 1;         ///< uint32
inline constexpr uint32_t kEvent = 2;       ///< repeated FtraceEvent
inline constexpr uint32_t kLostEvents = 3;  ///< bool
}  // namespace bundle

/// perfetto.protos.FtraceEvent: the common fields and the oneof `event`'s members.
namespace ftrace {
inline constexpr uint32_t kTimestamp = 1;           ///< uint64
inline constexpr uint32_t kPid = 2;                 ///< uint32
inline constexpr uint32_t kSchedSwitch = 4;         ///< SchedSwitchFtraceEvent
inline constexpr uint32_t kCommonFlags = 5;         ///< uint32
inline constexpr uint32_t kSchedWakeup = 17;        ///< SchedWakeupFtraceEvent
inline constexpr uint32_t kSchedWaking = 20;        ///< SchedWakingFtraceEvent
inline constexpr uint32_t kSoftirqEntry = 24;       ///< SoftirqEntryFtraceEvent
inline constexpr uint32_t kSoftirqExit = 25;        ///< SoftirqExitFtraceEvent
inline constexpr uint32_t kSoftirqRaise = 26;       ///< SoftirqRaiseFtraceEvent
inline constexpr uint32_t kIrqHandlerEntry = 36;    ///< IrqHandlerEntryFtraceEvent
inline constexpr uint32_t kIrqHandlerExit = 37;     ///< IrqHandlerExitFtraceEvent
inline constexpr uint32_t kSchedWakeupNew = 114;    ///< SchedWakeupNewFtraceEvent
inline constexpr uint32_t kSchedProcessExit = 238;  ///< SchedProcessExitFtraceEvent
inline constexpr uint32_t kSchedProcessFork = 239;  ///< SchedProcessForkFtraceEvent
inline constexpr uint32_t kGeneric = 327;           ///< GenericFtraceEvent
inline constexpr uint32_t kSchedPiSetprio = 353;    ///< SchedPiSetprioFtraceEvent
inline constexpr uint32_t kNetifReceiveSkb = 360;   ///< NetifReceiveSkbFtraceEvent
inline constexpr uint32_t kNetDevXmit = 361;        ///< NetDevXmitFtraceEvent
inline constexpr uint32_t kSchedMigrateTask = 491;  ///< SchedMigrateTaskFtraceEvent
inline constexpr uint32_t kLocalTimerEntry = 559;   ///< LocalTimerEntryFtraceEvent
inline constexpr uint32_t kLocalTimerExit = 560;    ///< LocalTimerExitFtraceEvent
}  // namespace ftrace

/// perfetto.protos.SchedSwitchFtraceEvent
namespace sched_switch {
inline constexpr uint32_t kPrevComm = 1;   ///< string
inline constexpr uint32_t kPrevPid = 2;    ///< int32
inline constexpr uint32_t kPrevPrio = 3;   ///< int32
inline constexpr uint32_t kPrevState = 4;  ///< int64
inline constexpr uint32_t kNextComm = 5;   ///< string
inline constexpr uint32_t kNextPid = 6;    ///< int32
inline constexpr uint32_t kNextPrio = 7;   ///< int32
}  // namespace sched_switch

/// perfetto.protos.SchedWaking/Wakeup/WakeupNewFtraceEvent (the same fields)
namespace sched_wake {
inline constexpr uint32_t kComm = 1;       ///< string
inline constexpr uint32_t kPid = 2;        ///< int32
inline constexpr uint32_t kPrio = 3;       ///< int32
inline constexpr uint32_t kTargetCpu = 5;  ///< int32
}  // namespace sched_wake

/// perfetto.protos.SchedMigrateTaskFtraceEvent
namespace sched_migrate_task {
inline constexpr uint32_t kComm = 1;     ///< string
inline constexpr uint32_t kPid = 2;      ///< int32
inline constexpr uint32_t kPrio = 3;     ///< int32
inline constexpr uint32_t kOrigCpu = 4;  ///< int32
inline constexpr uint32_t kDestCpu = 5;  ///< int32
}  // namespace sched_migrate_task

/// perfetto.protos.SchedPiSetprioFtraceEvent
namespace sched_pi_setprio {
inline constexpr uint32_t kComm = 1;     ///< string
inline constexpr uint32_t kNewprio = 2;  ///< int32
inline constexpr uint32_t kOldprio = 3;  ///< int32
inline constexpr uint32_t kPid = 4;      ///< int32
}  // namespace sched_pi_setprio

/// perfetto.protos.SchedProcessForkFtraceEvent
namespace sched_process_fork {
inline constexpr uint32_t kParentPid = 2;  ///< int32
inline constexpr uint32_t kChildComm = 3;  ///< string
inline constexpr uint32_t kChildPid = 4;   ///< int32
}  // namespace sched_process_fork

/// perfetto.protos.SchedProcessExitFtraceEvent
namespace sched_process_exit {
inline constexpr uint32_t kComm = 1;  ///< string
inline constexpr uint32_t kPid = 2;   ///< int32
inline constexpr uint32_t kPrio = 4;  ///< int32
}  // namespace sched_process_exit

/// perfetto.protos.IrqHandlerEntryFtraceEvent / IrqHandlerExitFtraceEvent
namespace irq_handler {
inline constexpr uint32_t kIrq = 1;   ///< int32 (entry and exit)
inline constexpr uint32_t kName = 2;  ///< string (entry)
inline constexpr uint32_t kRet = 2;   ///< int32 (exit)
}  // namespace irq_handler

/// perfetto.protos.SoftirqRaise/Entry/ExitFtraceEvent
namespace softirq {
inline constexpr uint32_t kVec = 1;  ///< uint32
}  // namespace softirq

/// perfetto.protos.LocalTimerEntry/ExitFtraceEvent
namespace local_timer {
inline constexpr uint32_t kVector = 1;  ///< int32
}  // namespace local_timer

/// perfetto.protos.NetifReceiveSkbFtraceEvent / NetDevXmitFtraceEvent
namespace net {
inline constexpr uint32_t kLen = 1;   ///< uint32
inline constexpr uint32_t kName = 2;  ///< string
inline constexpr uint32_t kRc = 3;    ///< int32 (net_dev_xmit)
}  // namespace net

/// perfetto.protos.GenericFtraceEvent and its Field
namespace generic {
inline constexpr uint32_t kEventName = 1;       ///< string
inline constexpr uint32_t kField = 2;           ///< repeated Field
inline constexpr uint32_t kFieldName = 1;       ///< Field.name: string
inline constexpr uint32_t kFieldStrValue = 3;   ///< Field.str_value: string
inline constexpr uint32_t kFieldIntValue = 4;   ///< Field.int_value: int64
inline constexpr uint32_t kFieldUintValue = 5;  ///< Field.uint_value: uint64
}  // namespace generic

/// perfetto.protos.TrackDescriptor and CounterDescriptor
namespace track_descriptor {
inline constexpr uint32_t kUuid = 1;         ///< uint64
inline constexpr uint32_t kName = 2;         ///< string
inline constexpr uint32_t kParentUuid = 5;   ///< uint64
inline constexpr uint32_t kCounter = 8;      ///< CounterDescriptor
inline constexpr uint32_t kCounterUnit = 3;  ///< CounterDescriptor.unit: Unit
inline constexpr uint32_t kUnitCount = 2;    ///< CounterDescriptor.Unit.UNIT_COUNT
}  // namespace track_descriptor

/// perfetto.protos.TrackEvent
namespace track_event {
inline constexpr uint32_t kCategoryIids = 3;         ///< repeated uint64 (interned)
inline constexpr uint32_t kDebugAnnotations = 4;     ///< repeated DebugAnnotation
inline constexpr uint32_t kType = 9;                 ///< Type
inline constexpr uint32_t kNameIid = 10;             ///< uint64 (interned EventName)
inline constexpr uint32_t kTrackUuid = 11;           ///< uint64
inline constexpr uint32_t kCategories = 22;          ///< repeated string
inline constexpr uint32_t kName = 23;                ///< string
inline constexpr uint32_t kCounterValue = 30;        ///< int64
inline constexpr uint32_t kFlowIds = 47;             ///< repeated fixed64
inline constexpr uint32_t kTerminatingFlowIds = 48;  ///< repeated fixed64
inline constexpr uint32_t kTypeSliceBegin = 1;       ///< Type.TYPE_SLICE_BEGIN
inline constexpr uint32_t kTypeSliceEnd = 2;         ///< Type.TYPE_SLICE_END
inline constexpr uint32_t kTypeInstant = 3;          ///< Type.TYPE_INSTANT
inline constexpr uint32_t kTypeCounter = 4;          ///< Type.TYPE_COUNTER
}  // namespace track_event

/// perfetto.protos.DebugAnnotation
namespace debug_annotation {
inline constexpr uint32_t kNameIid = 1;      ///< uint64 (interned DebugAnnotationName)
inline constexpr uint32_t kBoolValue = 2;    ///< bool
inline constexpr uint32_t kUintValue = 3;    ///< uint64
inline constexpr uint32_t kIntValue = 4;     ///< int64
inline constexpr uint32_t kDoubleValue = 5;  ///< double
inline constexpr uint32_t kStringValue = 6;  ///< string
inline constexpr uint32_t kName = 10;        ///< string
}  // namespace debug_annotation

}  // namespace napiscope::perfetto_export::fields
