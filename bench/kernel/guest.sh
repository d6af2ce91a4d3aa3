#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/kernel/guest.sh N DEPTH REPS: runs in the benchmark VM (bench/kernel/run.sh starts
# it), with smbench.ko in /host. For each path (a trace event with options/stacktrace, the
# function tracer with func_stack_trace, a kprobe with the stacktrace trigger): rounds 0 to
# REPS (0 is a warm-up), each with one timed run of N events per mode (miss: stackmap, every
# stack new to the map; warm: the same stacks again; fallback: stackmap, both maps full; full:
# full stacks; null: full stacks again, the clock's noise floor; none: no stacks), every event
# with its own stack of DEPTH+8 frames. Prints
# "RESULT path mode round ns_per_event" per run and "CHECK path mode ..." with what the
# buffer and stack_map_stat held after the last round's run, then "REP bytes ns" from
# /host/repcount; exits non-zero when a check fails.
set -u
N=$1 DEPTH=$2 REPS=$3
T=/sys/kernel/tracing
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

insmod /host/smbench.ko || { echo "FAIL: insmod smbench.ko"; exit 1; }
cd $T || exit 1
echo 0 > tracing_on
# Room for every event of a run with full stacks: nothing is overwritten or dropped.
echo 8192 > buffer_size_kb
echo 1 > options/stacktrace
echo 0 > options/stacktrace

stat_of() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" stack_map_stat; }

# One run of N events with v = FIRST + i (FIRST..FIRST+N-1); prints ns per event.
run() { # first
	echo "$N $DEPTH $1 0" > /proc/smbench || { echo "FAIL: write to /proc/smbench"; exit 1; }
	set -- $(cat /proc/smbench)
	echo $(($2 / $1))
}

reset_map() {
	echo 0 > tracing_on
	echo 0 > stack_map
}

# Path: set up its event, turn its stacks on (1) or off (0), count its events.
path_on() { # path
	case $1 in
	event) echo 1 > events/smbench/smbench_event/enable ;;
	function) echo smbench_leaf > set_ftrace_filter; echo function > current_tracer ;;
	kprobe)
		echo 'p:smbkp/leaf smbench_leaf' > kprobe_events
		echo 1 > events/smbkp/leaf/enable ;;
	esac
}
path_off() { # path
	case $1 in
	event) echo 0 > events/smbench/smbench_event/enable ;;
	function) echo nop > current_tracer; echo > set_ftrace_filter ;;
	kprobe) echo 0 > events/smbkp/leaf/enable; echo > kprobe_events ;;
	esac
}
stacks() { # path 0|1
	case $1 in
	event) echo $2 > options/stacktrace ;;
	function) echo $2 > options/func_stack_trace ;;
	kprobe) if [ $2 = 1 ]; then echo stacktrace > events/smbkp/leaf/trigger
		else echo '!stacktrace' > events/smbkp/leaf/trigger; fi ;;
	esac
}
count_events() { # path
	case $1 in
	event) grep -c ' smbench_event: ' trace ;;
	function) grep -c ' smbench_leaf <-' trace ;;
	kprobe) grep -c ' leaf: ' trace ;;
	esac
}

# One timed run of a mode: the buffer emptied, a short untimed run first (50 events with
# stacks of their own, v from 60000: TCG translates again the code that enabling a path or
# its stacks patched), then N events with v = FIRST + i, tracing on only during them.
timed() { # path mode round first
	echo 0 > tracing_on
	echo > trace
	echo 1 > tracing_on
	echo "50 $DEPTH 60000 0" > /proc/smbench
	echo 0 > tracing_on
	echo > trace
	echo 1 > tracing_on
	echo "RESULT $1 $2 $3 $(run $4)"
	echo 0 > tracing_on
}

# What the last run left: events in the buffer, ids, full stacks, the map's counters.
check() { # path mode want_ids(0|1)
	local ev ids full ent drops
	ev=$(count_events $1)
	ids=$(grep -c '<stack_id [0-9]*>' trace)
	full=$(grep -c '<stack trace>' trace)
	ent=$(stat_of entries)
	drops=$(stat_of drops)
	echo "CHECK $1 $2 events=$ev ids=$ids full=$full entries=$ent drops=$drops"
	[ "$ev" = "$N" ] || fail "$1 $2: $ev events in the buffer, not $N"
	case $2 in
	none) [ "$ids" = 0 ] && [ "$full" = 0 ] || fail "$1 none: stacks recorded" ;;
	full | null | fallback) [ "$full" = "$N" ] && [ "$ids" = 0 ] || fail "$1 $2: $full full stacks, $ids ids (want $N full)" ;;
	warm | miss) [ "$ids" = "$N" ] && [ "$full" = 0 ] || fail "$1 $2: $ids ids, $full full stacks (want $N ids)" ;;
	esac
}

# The depth of one of the benchmark's stacks, as the map stores it.
depth_check() { # path
	local d
	d=$(sed -n 's/^stack_id [0-9]* \[ref [0-9]*, depth \([0-9]*\)\]$/\1/p' stack_map | sort -n | uniq -c | tr '\n' ' ')
	echo "DEPTH $1 (stacks: frames) $d"
}

# Run N events with stacks v = FIRST.., then FIRST + N.., ... (tracing on) until
# stack_map_stat's drops grows: the map in use is full. Leaves the next FIRST in $first.
fill() { # path first
	local drops
	drops=$(stat_of drops)
	first=$2
	while [ "$(stat_of drops)" = "$drops" ] && [ "$first" -lt 56000 ]; do
		run "$first" > /dev/null
		first=$((first + N))
	done
	[ "$(stat_of drops)" != "$drops" ] || fail "$1 fallback: the map did not fill"
}

# The fallback state: the map in use full and the other one retired, so that a new stack
# has no map at all (trace_stackmap.c, "Generations"). Fill the first map: its first drop
# makes the work item allocate the second, and a later full lookup switches to it (or
# "next" does, if no lookup came after the allocation). The snapshot buffer then keeps the
# first map's ids (a map is recycled only once no buffer holds its ids) while the second
# one is filled.
fill_both() { # path
	local first tries=0
	echo 1 > tracing_on
	fill "$1" 16384
	until [ "$(stat_of switches)" = 1 ]; do
		tries=$((tries + 1))
		[ $tries -le 100 ] || { fail "$1 fallback: no switch to a second map"; break; }
		echo next > stack_map 2> /dev/null || sleep 0.1
	done
	echo 1 > snapshot
	fill "$1" "$first"
	echo 0 > tracing_on
	[ "$(stat_of switches)" = 1 ] && [ "$(stat_of retired)" -gt 0 ] ||
		fail "$1 fallback: switches $(stat_of switches), retired $(stat_of retired)"
}

# Per path, REPS rounds of the five modes, one run each, in the same order, so that a
# drift of the VM's speed touches every mode alike (run.sh compares modes round by round).
# miss: map emptied, stacks 0..N-1 all new; warm: the same stacks again, all found;
# fallback: both maps full, no free one (fill_both), stacks 8192.. find no room; full: the
# option off; null: the full run again, right after it (what the clock reads for two runs of
# the same work: the spread a difference between modes must exceed); none: no stacks. Round 0
# is a warm-up.
for p in event function kprobe; do
	path_on $p
	for r in $(seq 0 $REPS); do
		stacks $p 1
		echo 1 > options/stackmap
		reset_map
		timed $p miss $r 0
		[ $r = $REPS ] && { check $p miss; [ "$(stat_of entries)" = $((N + 50)) ] ||
			fail "$p miss: $(stat_of entries) stacks in the map, not $((N + 50))"; }
		timed $p warm $r 0
		[ $r = $REPS ] && check $p warm
		fill_both $p
		d0=$(stat_of drops)
		timed $p fallback $r 8192
		d1=$(stat_of drops)
		# The run's stacks and its 50 warm-up stacks (in the retired map) find no room.
		[ $((d1 - d0)) = $((N + 50)) ] ||
			fail "$p fallback: $((d1 - d0)) drops in the run, not $((N + 50))"
		[ $r = $REPS ] && { check $p fallback; echo "FILL $p entries=$(stat_of entries)"; }
		# Frees the snapshot buffer: the retired map's ids go with it.
		echo 0 > snapshot
		echo 0 > options/stackmap
		timed $p full $r 0
		[ $r = $REPS ] && check $p full
		timed $p null $r 0
		[ $r = $REPS ] && check $p null
		stacks $p 0
		timed $p none $r 0
		[ $r = $REPS ] && check $p none
	done
	depth_check $p
	path_off $p
done
reset_map
# How this clock counts a rep movsb of N bytes (run.sh prints it under the tables).
/host/repcount || fail "repcount"
echo "guest: $FAILS failed checks"
[ $FAILS = 0 ]
