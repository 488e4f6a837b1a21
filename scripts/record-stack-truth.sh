#!/bin/bash
# Records a short trace in which every event carries its kernel stack (the `stacktrace` trace
# option), so where each softirq ran can be read from the stack (irq_exit_rcu, local_bh_enable,
# run_ksoftirqd) independently of napiscope's context inference. Needs root.
#
#   scripts/record-stack-truth.sh OUT.dat [vectors|novectors] [SECONDS]
#
# Load: ping -f over a veth pair between two network namespaces of its own (198.18.7.1/2),
# plus the machine's own timers. Events are enabled in a tracefs instance of its own (the
# top-level buffer and settings are not touched); its raw pages are read out and wrapped into
# a trace.dat with `trace-cmd restore`, which also stores kallsyms, so `trace-cmd report`
# prints the stacks with symbol names (napiscope's recorder writes neither ftrace formats nor
# kallsyms). The instance and namespaces are removed on exit.
set -euo pipefail

out=${1:?usage: record-stack-truth.sh OUT.dat [vectors|novectors] [SECONDS]}
mode=${2:-novectors}
seconds=${3:-0.3}
tracing=/sys/kernel/tracing
instance=napiscope-stack-truth-$$
dir=$tracing/instances/$instance
work=$(mktemp -d)
ns_a=nsst-a-$$
ns_b=nsst-b-$$

[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing"

cleanup() {
  [ -d "$dir" ] && { echo 0 > "$dir/tracing_on"; echo 0 > "$dir/options/stacktrace"; rmdir "$dir"; }
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns_a"
ip netns add "$ns_b"
ip link add va$$ netns "$ns_a" type veth peer name vb$$ netns "$ns_b"
ip -n "$ns_a" addr add 198.18.7.1/24 dev va$$
ip -n "$ns_b" addr add 198.18.7.2/24 dev vb$$
ip -n "$ns_a" link set va$$ up
ip -n "$ns_b" link set vb$$ up
ip -n "$ns_a" link set lo up
ip -n "$ns_b" link set lo up

mkdir "$dir"
echo 0 > "$dir/tracing_on"
echo 16384 > "$dir/buffer_size_kb"
events="sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_wakeup_new
        sched/sched_migrate_task irq/irq_handler_entry irq/irq_handler_exit irq/softirq_raise
        irq/softirq_entry irq/softirq_exit napi/napi_poll net/netif_receive_skb net/netif_rx"
for e in $events; do echo 1 > "$dir/events/$e/enable"; done
[ "$mode" = vectors ] && echo 1 > "$dir/events/irq_vectors/enable"
echo 1 > "$dir/options/stacktrace"

ip netns exec "$ns_a" ping -q -f 198.18.7.2 > /dev/null &
ping_pid=$!
sleep 0.2  # the flood is running before tracing starts
echo 1 > "$dir/tracing_on"
sleep "$seconds"
echo 0 > "$dir/tracing_on"
kill "$ping_pid"
wait "$ping_pid" 2>/dev/null || true

cpus=()
for cpu_dir in "$dir"/per_cpu/cpu*; do
  cpu=${cpu_dir##*cpu}
  dd if="$cpu_dir/trace_pipe_raw" of="$work/cpu$cpu.raw" bs=4096 iflag=nonblock status=none 2>/dev/null || true
  cpus+=("$work/cpu$cpu.raw")
done
grep -H . "$dir"/per_cpu/cpu*/stats | grep -E 'overrun|dropped' >&2 || true

trace-cmd restore -c -o "$work/head.dat" > /dev/null
trace-cmd restore -i "$work/head.dat" -o "$work/full.dat" "${cpus[@]}" > /dev/null
trace-cmd convert -i "$work/full.dat" -o "$out" --file-version 7 --compression zstd > /dev/null
echo "$out: $(trace-cmd report -i "$out" 2>/dev/null | grep -c ': softirq_entry:') softirq entries" >&2
