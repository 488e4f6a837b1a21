// The export writes TrackDescriptors and TrackEvents with its own wire writer: the field numbers
// it uses must be those of the .proto, and the bytes those the generated classes of
// perfetto_trace.proto write for the same packets.
#include <gtest/gtest.h>

#include <string>

#include "block_queue.h"
#include "packet_writer.h"
#include "perfetto_fields.h"
#include "perfetto_trace.pb.h"
#include "support/test_support.h"
#include "track_writer.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;
using google::protobuf::Descriptor;

int FieldNumber(const Descriptor* message, const char* field) {
  const google::protobuf::FieldDescriptor* found = message->FindFieldByName(field);
  return found != nullptr ? found->number() : -1;
}

TEST(PerfettoFields, EveryNumberIsTheProtosOwn) {
  struct Expected {
    const Descriptor* message;
    const char* field;
    uint32_t number;
  };
  using namespace perfetto::protos;
  const Expected expected[] = {
      {Trace::descriptor(), "packet", f::trace::kPacket},
      {TracePacket::descriptor(), "ftrace_events", f::packet::kFtraceEvents},
      {TracePacket::descriptor(), "timestamp", f::packet::kTimestamp},
      {TracePacket::descriptor(), "trusted_packet_sequence_id",
       f::packet::kTrustedPacketSequenceId},
      {TracePacket::descriptor(), "track_event", f::packet::kTrackEvent},
      {TracePacket::descriptor(), "sequence_flags", f::packet::kSequenceFlags},
      {TracePacket::descriptor(), "interned_data", f::packet::kInternedData},
      {InternedData::descriptor(), "event_categories", f::interned::kEventCategories},
      {InternedData::descriptor(), "event_names", f::interned::kEventNames},
      {InternedData::descriptor(), "debug_annotation_names", f::interned::kDebugAnnotationNames},
      {EventCategory::descriptor(), "iid", f::interned::kIid},
      {EventCategory::descriptor(), "name", f::interned::kName},
      {EventName::descriptor(), "iid", f::interned::kIid},
      {EventName::descriptor(), "name", f::interned::kName},
      {DebugAnnotationName::descriptor(), "iid", f::interned::kIid},
      {DebugAnnotationName::descriptor(), "name", f::interned::kName},
      {TracePacket::descriptor(), "track_descriptor", f::packet::kTrackDescriptor},
      {FtraceEventBundle::descriptor(), "cpu", f::bundle::kCpu},
      {FtraceEventBundle::descriptor(), "event", f::bundle::kEvent},
      {FtraceEventBundle::descriptor(), "lost_events", f::bundle::kLostEvents},
      {FtraceEvent::descriptor(), "timestamp", f::ftrace::kTimestamp},
      {FtraceEvent::descriptor(), "pid", f::ftrace::kPid},
      {FtraceEvent::descriptor(), "common_flags", f::ftrace::kCommonFlags},
      {FtraceEvent::descriptor(), "sched_switch", f::ftrace::kSchedSwitch},
      {FtraceEvent::descriptor(), "sched_wakeup", f::ftrace::kSchedWakeup},
      {FtraceEvent::descriptor(), "sched_waking", f::ftrace::kSchedWaking},
      {FtraceEvent::descriptor(), "softirq_entry", f::ftrace::kSoftirqEntry},
      {FtraceEvent::descriptor(), "softirq_exit", f::ftrace::kSoftirqExit},
      {FtraceEvent::descriptor(), "softirq_raise", f::ftrace::kSoftirqRaise},
      {FtraceEvent::descriptor(), "irq_handler_entry", f::ftrace::kIrqHandlerEntry},
      {FtraceEvent::descriptor(), "irq_handler_exit", f::ftrace::kIrqHandlerExit},
      {FtraceEvent::descriptor(), "sched_wakeup_new", f::ftrace::kSchedWakeupNew},
      {FtraceEvent::descriptor(), "sched_process_exit", f::ftrace::kSchedProcessExit},
      {FtraceEvent::descriptor(), "sched_process_fork", f::ftrace::kSchedProcessFork},
      {FtraceEvent::descriptor(), "generic", f::ftrace::kGeneric},
      {FtraceEvent::descriptor(), "sched_pi_setprio", f::ftrace::kSchedPiSetprio},
      {FtraceEvent::descriptor(), "netif_receive_skb", f::ftrace::kNetifReceiveSkb},
      {FtraceEvent::descriptor(), "net_dev_xmit", f::ftrace::kNetDevXmit},
      {FtraceEvent::descriptor(), "sched_migrate_task", f::ftrace::kSchedMigrateTask},
      {FtraceEvent::descriptor(), "local_timer_entry", f::ftrace::kLocalTimerEntry},
      {FtraceEvent::descriptor(), "local_timer_exit", f::ftrace::kLocalTimerExit},
      {SchedSwitchFtraceEvent::descriptor(), "prev_comm", f::sched_switch::kPrevComm},
      {SchedSwitchFtraceEvent::descriptor(), "prev_pid", f::sched_switch::kPrevPid},
      {SchedSwitchFtraceEvent::descriptor(), "prev_prio", f::sched_switch::kPrevPrio},
      {SchedSwitchFtraceEvent::descriptor(), "prev_state", f::sched_switch::kPrevState},
      {SchedSwitchFtraceEvent::descriptor(), "next_comm", f::sched_switch::kNextComm},
      {SchedSwitchFtraceEvent::descriptor(), "next_pid", f::sched_switch::kNextPid},
      {SchedSwitchFtraceEvent::descriptor(), "next_prio", f::sched_switch::kNextPrio},
      {SchedWakingFtraceEvent::descriptor(), "comm", f::sched_wake::kComm},
      {SchedWakingFtraceEvent::descriptor(), "pid", f::sched_wake::kPid},
      {SchedWakingFtraceEvent::descriptor(), "prio", f::sched_wake::kPrio},
      {SchedWakingFtraceEvent::descriptor(), "target_cpu", f::sched_wake::kTargetCpu},
      {SchedWakeupFtraceEvent::descriptor(), "comm", f::sched_wake::kComm},
      {SchedWakeupFtraceEvent::descriptor(), "pid", f::sched_wake::kPid},
      {SchedWakeupFtraceEvent::descriptor(), "prio", f::sched_wake::kPrio},
      {SchedWakeupFtraceEvent::descriptor(), "target_cpu", f::sched_wake::kTargetCpu},
      {SchedWakeupNewFtraceEvent::descriptor(), "comm", f::sched_wake::kComm},
      {SchedWakeupNewFtraceEvent::descriptor(), "pid", f::sched_wake::kPid},
      {SchedWakeupNewFtraceEvent::descriptor(), "prio", f::sched_wake::kPrio},
      {SchedWakeupNewFtraceEvent::descriptor(), "target_cpu", f::sched_wake::kTargetCpu},
      {SchedMigrateTaskFtraceEvent::descriptor(), "comm", f::sched_migrate_task::kComm},
      {SchedMigrateTaskFtraceEvent::descriptor(), "pid", f::sched_migrate_task::kPid},
      {SchedMigrateTaskFtraceEvent::descriptor(), "prio", f::sched_migrate_task::kPrio},
      {SchedMigrateTaskFtraceEvent::descriptor(), "orig_cpu", f::sched_migrate_task::kOrigCpu},
      {SchedMigrateTaskFtraceEvent::descriptor(), "dest_cpu", f::sched_migrate_task::kDestCpu},
      {SchedPiSetprioFtraceEvent::descriptor(), "comm", f::sched_pi_setprio::kComm},
      {SchedPiSetprioFtraceEvent::descriptor(), "newprio", f::sched_pi_setprio::kNewprio},
      {SchedPiSetprioFtraceEvent::descriptor(), "oldprio", f::sched_pi_setprio::kOldprio},
      {SchedPiSetprioFtraceEvent::descriptor(), "pid", f::sched_pi_setprio::kPid},
      {SchedProcessForkFtraceEvent::descriptor(), "parent_pid", f::sched_process_fork::kParentPid},
      {SchedProcessForkFtraceEvent::descriptor(), "child_comm", f::sched_process_fork::kChildComm},
      {SchedProcessForkFtraceEvent::descriptor(), "child_pid", f::sched_process_fork::kChildPid},
      {SchedProcessExitFtraceEvent::descriptor(), "comm", f::sched_process_exit::kComm},
      {SchedProcessExitFtraceEvent::descriptor(), "pid", f::sched_process_exit::kPid},
      {SchedProcessExitFtraceEvent::descriptor(), "prio", f::sched_process_exit::kPrio},
      {IrqHandlerEntryFtraceEvent::descriptor(), "irq", f::irq_handler::kIrq},
      {IrqHandlerEntryFtraceEvent::descriptor(), "name", f::irq_handler::kName},
      {IrqHandlerExitFtraceEvent::descriptor(), "irq", f::irq_handler::kIrq},
      {IrqHandlerExitFtraceEvent::descriptor(), "ret", f::irq_handler::kRet},
      {SoftirqRaiseFtraceEvent::descriptor(), "vec", f::softirq::kVec},
      {SoftirqEntryFtraceEvent::descriptor(), "vec", f::softirq::kVec},
      {SoftirqExitFtraceEvent::descriptor(), "vec", f::softirq::kVec},
      {LocalTimerEntryFtraceEvent::descriptor(), "vector", f::local_timer::kVector},
      {LocalTimerExitFtraceEvent::descriptor(), "vector", f::local_timer::kVector},
      {NetifReceiveSkbFtraceEvent::descriptor(), "len", f::net::kLen},
      {NetifReceiveSkbFtraceEvent::descriptor(), "name", f::net::kName},
      {NetDevXmitFtraceEvent::descriptor(), "len", f::net::kLen},
      {NetDevXmitFtraceEvent::descriptor(), "name", f::net::kName},
      {NetDevXmitFtraceEvent::descriptor(), "rc", f::net::kRc},
      {GenericFtraceEvent::descriptor(), "event_name", f::generic::kEventName},
      {GenericFtraceEvent::descriptor(), "field", f::generic::kField},
      {GenericFtraceEvent::Field::descriptor(), "name", f::generic::kFieldName},
      {GenericFtraceEvent::Field::descriptor(), "str_value", f::generic::kFieldStrValue},
      {GenericFtraceEvent::Field::descriptor(), "int_value", f::generic::kFieldIntValue},
      {GenericFtraceEvent::Field::descriptor(), "uint_value", f::generic::kFieldUintValue},
      {TrackDescriptor::descriptor(), "uuid", f::track_descriptor::kUuid},
      {TrackDescriptor::descriptor(), "name", f::track_descriptor::kName},
      {TrackDescriptor::descriptor(), "parent_uuid", f::track_descriptor::kParentUuid},
      {TrackDescriptor::descriptor(), "counter", f::track_descriptor::kCounter},
      {CounterDescriptor::descriptor(), "unit", f::track_descriptor::kCounterUnit},
      {TrackEvent::descriptor(), "debug_annotations", f::track_event::kDebugAnnotations},
      {TrackEvent::descriptor(), "type", f::track_event::kType},
      {TrackEvent::descriptor(), "category_iids", f::track_event::kCategoryIids},
      {TrackEvent::descriptor(), "name_iid", f::track_event::kNameIid},
      {TrackEvent::descriptor(), "track_uuid", f::track_event::kTrackUuid},
      {TrackEvent::descriptor(), "categories", f::track_event::kCategories},
      {TrackEvent::descriptor(), "name", f::track_event::kName},
      {TrackEvent::descriptor(), "counter_value", f::track_event::kCounterValue},
      {TrackEvent::descriptor(), "flow_ids", f::track_event::kFlowIds},
      {TrackEvent::descriptor(), "terminating_flow_ids", f::track_event::kTerminatingFlowIds},
      {DebugAnnotation::descriptor(), "bool_value", f::debug_annotation::kBoolValue},
      {DebugAnnotation::descriptor(), "uint_value", f::debug_annotation::kUintValue},
      {DebugAnnotation::descriptor(), "int_value", f::debug_annotation::kIntValue},
      {DebugAnnotation::descriptor(), "double_value", f::debug_annotation::kDoubleValue},
      {DebugAnnotation::descriptor(), "string_value", f::debug_annotation::kStringValue},
      {DebugAnnotation::descriptor(), "name", f::debug_annotation::kName},
      {DebugAnnotation::descriptor(), "name_iid", f::debug_annotation::kNameIid},
  };
  for (const Expected& e : expected) {
    EXPECT_EQ(FieldNumber(e.message, e.field), static_cast<int>(e.number))
        << e.message->name() << "." << e.field;
  }
  // sequence_flags is a plain uint32 in the .proto: SEQ_INCREMENTAL_STATE_CLEARED is Perfetto's 1.
  EXPECT_EQ(f::packet::kSeqIncrementalStateCleared, 1u);
  EXPECT_EQ(f::packet::kSeqNeedsIncrementalState, 2u);  // SEQ_NEEDS_INCREMENTAL_STATE
  EXPECT_EQ(f::track_descriptor::kUnitCount, static_cast<uint32_t>(CounterDescriptor::UNIT_COUNT));
  EXPECT_EQ(f::track_event::kTypeSliceBegin, static_cast<uint32_t>(TrackEvent::TYPE_SLICE_BEGIN));
  EXPECT_EQ(f::track_event::kTypeSliceEnd, static_cast<uint32_t>(TrackEvent::TYPE_SLICE_END));
  EXPECT_EQ(f::track_event::kTypeInstant, static_cast<uint32_t>(TrackEvent::TYPE_INSTANT));
  EXPECT_EQ(f::track_event::kTypeCounter, static_cast<uint32_t>(TrackEvent::TYPE_COUNTER));
}

// The same packets through the generated classes: the reference for the writer's bytes. The
// strings of the first slice and of the instant are interned in the packets that first use
// them; the second slice reuses the slice's iids and defines nothing.
perfetto::protos::Trace ReferenceTrace(const std::string& long_name) {
  using namespace perfetto::protos;
  Trace trace;
  auto packet = [&trace](uint32_t flags) {
    TracePacket* p = trace.add_packet();
    p->set_trusted_packet_sequence_id(1);
    if (flags != 0) p->set_sequence_flags(flags);
    return p;
  };
  packet(1);  // the opening packet: the sequence starts (SEQ_INCREMENTAL_STATE_CLEARED)
  TrackDescriptor* group = packet(0)->mutable_track_descriptor();
  group->set_uuid(1);
  group->set_name("napiscope CPU 1");
  TrackDescriptor* counter = packet(0)->mutable_track_descriptor();
  counter->set_uuid(2);
  counter->set_name("CPU 1 NET_RX pending");
  counter->set_parent_uuid(1);
  counter->mutable_counter()->set_unit(CounterDescriptor::UNIT_COUNT);

  auto slice = [&](uint64_t begin_ns, uint64_t end_ns, bool first) {
    TracePacket* begin = packet(2);  // SEQ_NEEDS_INCREMENTAL_STATE
    begin->set_timestamp(begin_ns);
    TrackEvent* event = begin->mutable_track_event();
    event->set_type(TrackEvent::TYPE_SLICE_BEGIN);
    event->set_track_uuid(1);
    event->add_category_iids(1);
    event->set_name_iid(1);
    DebugAnnotation* a = event->add_debug_annotations();
    a->set_name_iid(1);
    a->set_int_value(-3);
    a = event->add_debug_annotations();
    a->set_name_iid(2);
    a->set_bool_value(true);
    a = event->add_debug_annotations();
    a->set_name_iid(3);
    a->set_double_value(0.25);
    a = event->add_debug_annotations();
    a->set_name_iid(4);
    a->set_string_value(long_name);
    event->add_flow_ids(7);
    event->add_terminating_flow_ids(0xffff'ffff'ffff'fff0);
    if (first) {
      InternedData* data = begin->mutable_interned_data();
      EventCategory* category = data->add_event_categories();
      category->set_iid(1);
      category->set_name("softirq");
      EventName* name = data->add_event_names();
      name->set_iid(1);
      name->set_name(long_name);
      const char* arg_names[] = {"vec", "exhausted", "ratio", "summary"};
      for (uint64_t iid = 1; iid <= 4; ++iid) {
        DebugAnnotationName* arg = data->add_debug_annotation_names();
        arg->set_iid(iid);
        arg->set_name(arg_names[iid - 1]);
      }
    }
    TracePacket* end = packet(0);
    end->set_timestamp(end_ns);
    end->mutable_track_event()->set_type(TrackEvent::TYPE_SLICE_END);
    end->mutable_track_event()->set_track_uuid(1);
  };
  slice(1000, 2000, true);
  slice(3000, 4000, false);

  TracePacket* instant = packet(2);
  instant->set_timestamp(1500);
  instant->mutable_track_event()->set_type(TrackEvent::TYPE_INSTANT);
  instant->mutable_track_event()->set_track_uuid(1);
  instant->mutable_track_event()->add_category_iids(2);
  instant->mutable_track_event()->set_name_iid(2);
  EventCategory* category = instant->mutable_interned_data()->add_event_categories();
  category->set_iid(2);
  category->set_name("finding");
  EventName* name = instant->mutable_interned_data()->add_event_names();
  name->set_iid(2);
  name->set_name("rule");

  TracePacket* value = packet(0);
  value->set_timestamp(0);  // negative times are written as 0
  value->mutable_track_event()->set_type(TrackEvent::TYPE_COUNTER);
  value->mutable_track_event()->set_track_uuid(2);
  value->mutable_track_event()->set_counter_value(-5);
  return trace;
}

// Tracks encoded on the calling thread and written by another (`threaded`) or by the same.
void ExpectBytesOfTheGeneratedClasses(bool threaded) {
  // A name long enough that the event's and the packet's lengths take two and three bytes.
  std::string long_name(70'000, 'x');
  std::string path = testing::MakeTempDir() + "/tracks.pftrace";
  PerfettoExportStats stats;
  {
    PacketWriter out;
    ASSERT_TRUE(out.Open(path).ok());
    BlockQueue blocks(&out, threaded);
    BlockWriter packets(&blocks, block_source::kTracks);
    TrackWriter writer(&packets, &stats);
    uint64_t cpu =
        writer.Track(TrackKind::kCpuGroup, 1, [] { return TrackSpec{"napiscope CPU 1"}; });
    uint64_t pending = writer.Track(TrackKind::kCpuNetRxPending, 1, [&] {
      return TrackSpec{"CPU 1 NET_RX pending", cpu, true};
    });
    uint64_t out_flows[] = {7};
    uint64_t in_flows[] = {0xffff'ffff'ffff'fff0};
    for (TimestampNs begin_ns : {1000, 3000}) {
      // Interned again for the second slice: the same iids, nothing defined again.
      Arg args[] = {{writer.ArgName("vec"), int64_t{-3}},
                    {writer.ArgName("exhausted"), true},
                    {writer.ArgName("ratio"), 0.25},
                    {writer.ArgName("summary"), std::string_view(long_name)}};
      writer.Slice(cpu, begin_ns, begin_ns + 1000, writer.Category("softirq"),
                   writer.EventName(long_name), args, Flows{out_flows, in_flows});
    }
    writer.Instant(cpu, 1500, writer.Category("finding"), writer.EventName("rule"), {});
    writer.Counter(pending, -10, -5);
    packets.Flush();
    blocks.Finish();
    ASSERT_TRUE(out.Close().ok());
    EXPECT_EQ(out.bytes(), static_cast<int64_t>(testing::ReadFile(path).size()));
  }
  perfetto::protos::Trace reference = ReferenceTrace(long_name);
  std::string written = testing::ReadFile(path);
  EXPECT_EQ(written.size(), reference.SerializeAsString().size());
  EXPECT_TRUE(written == reference.SerializeAsString());
  perfetto::protos::Trace decoded;
  ASSERT_TRUE(decoded.ParseFromString(written));
  EXPECT_EQ(decoded.DebugString(), reference.DebugString());
  EXPECT_EQ(stats.tracks, 2);
  EXPECT_EQ(stats.slices, 2);
  EXPECT_EQ(stats.instants, 1);
  EXPECT_EQ(stats.counter_values, 1);
}

TEST(TrackEncode, BytesEqualTheGeneratedClasses) { ExpectBytesOfTheGeneratedClasses(false); }

TEST(TrackEncode, BytesEqualTheGeneratedClassesWhenWrittenByAnotherThread) {
  ExpectBytesOfTheGeneratedClasses(true);
}

}  // namespace
}  // namespace napiscope::perfetto_export
