#!/bin/bash
# Guest half of the recording test (tests/recording/run.sh): runs in the VM with the share
# folder as /host. Records the same kind of workload with `stackmap record` (flight recorder
# with the text trace too, a wrapped small buffer, streaming) and with Debian's trace-cmd
# (copied to /host/tc with its libraries). Results go to /host/<case>/.
set -u
SM=${SM:-/src/tool/build/stackmap-static}
T=/sys/kernel/tracing
EVENTS="-e sched:sched_switch -e sched:sched_wakeup"
TC="/host/tc/ld-linux-x86-64.so.2 --library-path /host/tc /host/tc/trace-cmd"

# a workload that switches a lot on both CPUs: reads in dd and short sleeps
work() { # rounds
	for i in $(seq "$1"); do
		dd if=/proc/self/status of=/dev/null bs=64 count=8 2>/dev/null &
		dd if=/proc/self/status of=/dev/null bs=64 count=8 2>/dev/null
		wait
	done
}

echo "== flight recorder, dat + text"
$SM record -F both $EVENTS -o /host/flight -- bash -c "$(declare -f work); work 30"
echo "rc=$?"

echo "== wrapped buffer (16 KB per CPU), dat + text"
$SM record -F both -b 16 $EVENTS -o /host/wrap -- bash -c "$(declare -f work); work 150"
echo "rc=$?"

echo "== streaming, 32 KB per CPU, a workload several times that"
$SM record -m stream -b 32 $EVENTS -o /host/stream -- bash -c "$(declare -f work); work 400"
echo "rc=$?"

echo "== trace-cmd record"
mkdir -p /host/tcrec
$TC record -q -O stackmap -O stacktrace $EVENTS -o /host/tcrec/trace.dat -- \
	bash -c "$(declare -f work); work 30" >/host/tcrec/record.log 2>&1
echo "rc=$?"
cat $T/stack_map_bin >/host/tcrec/stack_map_bin
cat $T/options/stackmap $T/options/stacktrace
echo 0 >$T/options/stackmap
echo 0 >$T/options/stacktrace

# As a user records a running system with definitions: small overwriting buffers, the map
# switched every 50 ms, and no stack_map_bin kept. Instances pa and pc record stack ids with
# definitions, pc of scheduler events too, so that its ids name other stacks than pa's, and pb
# full stacks of the kmem events (check.py pairs them).
echo "== trace-cmd record, pa and pc ids and pb full stacks, next every 50 ms"
mkdir -p /host/tcpairs $T/instances/pa $T/instances/pb $T/instances/pc
for i in pa pc; do
	echo 10 >$T/instances/$i/stack_map_bits
	echo 1 >$T/instances/$i/stack_map_defs
done
touch /tmp/switching
(while [ -e /tmp/switching ]; do
	echo next >$T/instances/pa/stack_map 2>/dev/null
	echo next >$T/instances/pc/stack_map 2>/dev/null
	sleep 0.05
done) &
switcher=$!
$TC record -q -B pa -O stackmap -O stacktrace -b 16 -e kmem:kmalloc -e kmem:kmem_cache_alloc \
	-B pb -O stacktrace -b 16 -e kmem:kmalloc -e kmem:kmem_cache_alloc \
	-B pc -O stackmap -O stacktrace -b 16 -e kmem:kmalloc -e kmem:kmem_cache_alloc \
	-e sched:sched_switch -e sched:sched_wakeup \
	-o /host/tcpairs/trace.dat -- bash -c "$(declare -f work); work 150" >/host/tcpairs/record.log 2>&1
echo "rc=$?"
rm -f /tmp/switching
wait $switcher
grep -E '^(switches|recycled|drops):' $T/instances/pa/stack_map_stat | tr '\n' ' '
echo

# As a flight recorder: trace-cmd start, stop, then extract. Instance fr records ids with
# definitions in 16 KB overwriting buffers, fb full stacks of the same events in buffers large
# enough to hold the span fr keeps. stack_map_bin is saved after tracing stops and before
# extract reads the buffers: the moment the rst names for an overwrite buffer.
echo "== trace-cmd start/stop/extract, fr ids and fb full stacks, next every 50 ms"
mkdir -p /host/tcflight $T/instances/fr $T/instances/fb
echo 10 >$T/instances/fr/stack_map_bits
echo 1 >$T/instances/fr/stack_map_defs
$TC start -B fr -O stackmap -O stacktrace -b 16 -e kmem:kmalloc -e kmem:kmem_cache_alloc \
	-B fb -O stacktrace -b 512 -e kmem:kmalloc -e kmem:kmem_cache_alloc \
	>/host/tcflight/start.log 2>&1
echo "rc=$?"
touch /tmp/switching
(while [ -e /tmp/switching ]; do echo next >$T/instances/fr/stack_map 2>/dev/null; sleep 0.05; done) &
switcher=$!
bash -c "$(declare -f work); work 150"
rm -f /tmp/switching
wait $switcher
$TC stop -B fr -B fb
cat $T/instances/fr/stack_map_bin >/host/tcflight/fr.stack_map_bin
grep -E '^(switches|recycled|defs_lost):' $T/instances/fr/stack_map_stat | tr '\n' ' '
echo
$TC extract -B fr -B fb -o /host/tcflight/trace.dat >/host/tcflight/extract.log 2>&1
echo "rc=$?"

echo "== stackmap record --defs, streaming 16 KB per CPU, next every 50 ms"
touch /tmp/switching
(while [ -e /tmp/switching ]; do echo next >$T/stack_map 2>/dev/null; sleep 0.05; done) &
switcher=$!
$SM record -m stream --defs -b 16 -e kmem:kmalloc -e kmem:kmem_cache_alloc -o /host/smdefs -- \
	bash -c "$(declare -f work); work 150"
echo "rc=$?"
rm -f /tmp/switching
wait $switcher
grep -E '^(switches|recycled):' /host/smdefs/stack_map_stat | tr '\n' ' '
echo
echo "guest done"
