#!/bin/sh
# Records testdata/real/napi-chrt.dat: the NIC's receive IRQ wakes its threaded-NAPI kthread from
# the hard IRQ, with priorities set by chrt (the truth the network path's priority table is
# checked against), and writes what chrt reports to testdata/real/napi-chrt.chrt.json.
#   scripts/record-napi-chrt.sh [NAPISCOPE_BINARY] [DEV]      (as root, from the repository root)
# DEV (default: the device of the default route) must be virtio-net or another NIC whose IRQ
# schedules NAPI; traffic is a flood ping to the default gateway. Restores DEV's threaded mode
# and the kthreads' policy; records in its own tracefs instance (top-level tracing untouched).
set -eu
bin=${1:-build/cli/napiscope}
dev=${2:-$(ip route | awk '/^default/ {print $5; exit}')}
gateway=$(ip route | awk '/^default/ {print $3; exit}')
out=testdata/real/napi-chrt
napi_prio=60
rt_prio=70
threaded=/sys/class/net/$dev/threaded
[ -w "$threaded" ] || { echo "record-napi-chrt: $threaded: not writable (root? threaded NAPI?)" >&2; exit 1; }
old_threaded=$(cat "$threaded")
napi_pids() { ps -eo pid=,comm= | awk -v p="napi/$dev-" 'index($2, p) == 1 {print $1}'; }
restore() {
  for pid in $(napi_pids); do chrt -o -p 0 "$pid" 2>/dev/null || true; done
  echo "$old_threaded" > "$threaded"
}
trap restore EXIT
echo 1 > "$threaded"
sleep 0.5
pids=$(napi_pids)
[ -n "$pids" ] || { echo "record-napi-chrt: no napi/$dev-* kthreads after threaded=1" >&2; exit 1; }
for pid in $pids; do chrt -f -p "$napi_prio" "$pid"; done
# The receive IRQ's CPU: where the RT task competes with the NAPI kthread.
virtio=$(basename "$(readlink -f /sys/class/net/"$dev"/device)")
irq_line=$(grep -E "$virtio-input\.0\$" /proc/interrupts || true)
irq=$(echo "$irq_line" | awk -F: '{gsub(/ /, "", $1); print $1}')
[ -n "$irq" ] || { echo "record-napi-chrt: no $virtio-input.0 line in /proc/interrupts" >&2; exit 1; }
cpu=$(cat /proc/irq/"$irq"/effective_affinity_list 2>/dev/null | cut -d, -f1 | cut -d- -f1)
# A periodic FIFO task above the kthreads on that CPU: 1 ms sleeps, 2 s.
taskset -c "${cpu:-0}" chrt -f "$rt_prio" python3 -c '
import time
end = time.monotonic() + 2.0
while time.monotonic() < end:
    time.sleep(0.001)
' &
rt_pid=$!
ping -f -c 20000 -w 3 "$gateway" > /dev/null 2>&1 &
ping_pid=$!
sleep 0.3
"$bin" record -o "$out.dat" --duration 1
wait "$ping_pid" || true
{
  printf '{\n  "dev": "%s",\n  "irq": %s,\n  "irq_handler": "%s",\n  "irq_cpu": %s,\n' \
    "$dev" "$irq" "$virtio-input.0" "${cpu:-0}"
  printf '  "source": "chrt -p PID after chrt -f -p %s (NAPI kthreads) and chrt -f %s (the RT task)",\n' \
    "$napi_prio" "$rt_prio"
  printf '  "threads": [\n'
  sep=""
  for pid in $pids $rt_pid; do
    comm=$(cat /proc/"$pid"/comm 2>/dev/null || echo python3)
    policy=$(chrt -p "$pid" 2>/dev/null | awk -F': ' '/policy/ {print $2}')
    prio=$(chrt -p "$pid" 2>/dev/null | awk -F': ' '/priority/ {print $2}')
    [ "$pid" = "$rt_pid" ] && { policy=${policy:-SCHED_FIFO}; prio=${prio:-$rt_prio}; }
    printf '%s    {"pid": %s, "comm": "%s", "policy": "%s", "priority": %s}' \
      "$sep" "$pid" "$comm" "$policy" "$prio"
    sep=",
"
  done
  printf '\n  ]\n}\n'
} > "$out.chrt.json"
wait "$rt_pid" || true
ls -l "$out.dat" "$out.chrt.json"
