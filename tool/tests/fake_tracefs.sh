#!/bin/sh
# Build a fake tracefs tree (plain files) for the record tests: fake_tracefs.sh DIR MAPFILE [nosupport]
set -e
d=$1
rm -rf "$d"
mkdir -p "$d/options" "$d/events/sched/sched_switch" "$d/events/sched/sched_wakeup" \
	"$d/events/kmem/kmem_cache_alloc"
echo 0 > "$d/tracing_on"
echo "7 (expanded: 1408)" > "$d/buffer_size_kb"
echo 0 > "$d/options/stacktrace"
echo 0 > "$d/events/sched/sched_switch/enable"
echo 0 > "$d/events/sched/sched_wakeup/enable"
echo 1 > "$d/events/kmem/kmem_cache_alloc/enable"
echo 0 > "$d/events/sched/enable"
echo 1 > "$d/events/kmem/enable"
echo "# fake trace" > "$d/trace"
if [ "$3" != nosupport ]; then
	echo 0 > "$d/options/stackmap"
	echo 0 > "$d/stack_map_defs"
	: > "$d/stack_map"
	cp "$2" "$d/stack_map_bin"
	printf 'entries:      5 / 16384\ntable_size:   32768\nsuccesses:    12\ndrops:        0\nsuccess_rate: 100%%\n' > "$d/stack_map_stat"
fi
# Binary side (record --format dat): event formats, header pages and two CPUs of ring-buffer
# pages taken from a real recording (tests/datfix.py explode tests/fixtures/dat/trace.dat).
cp -r tests/fixtures/tracefs-raw/. "$d/"
echo "[local] global counter uptime perf mono mono_raw boot" > "$d/trace_clock"
