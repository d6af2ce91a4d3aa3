# SPDX-License-Identifier: GPL-2.0
# The test run on the debug kernel (KASAN, lockdep, kmemleak: `run.sh debug`) and on the
# KCSAN kernel (`run.sh kcsan`), inside the VM as root; started by scripts/test, which
# boots with --strict (any WARNING, BUG, KASAN/KCSAN report or kmemleak leak in the console
# fails the run) and multi-threaded TCG. `run.sh selftests` checks the ftrace start-up
# self-tests of a second boot of the same kernel (single-threaded TCG, --selftests).
# Prints "ok ..." / "FAIL ..." and "N passed, N failed".
mode=${1:-debug}
T=/sys/kernel/tracing
G=/src/build/guest
D=/sys/kernel/debug
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
run() { # description command...
	local d=$1 t0=$SECONDS
	shift
	if "$@" > /tmp/out 2>&1; then
		ok "$d ($((SECONDS - t0)) s; $(grep -E '^ok random|operations checked|^# pairs: [0-9]|^# pairs-overwrite:' /tmp/out | tail -n 1))"
	else
		local rc=$?
		grep -E 'not ok|FAIL|^# pairs: [0-9]|^# pairs-overwrite:|^# p[ab] event without a pair|^# id ' /tmp/out | head -n 20
		bad "$d (exit $rc)"
	fi
}

dmesg > /tmp/boot.txt
. /src/tests/lib/bootlog.sh
if [ "$mode" = selftests ]; then
	# A boot of its own under single-threaded TCG, with KUnit off (kunit.enable=0): the
	# self-tests patch code on a live CPU, which multi-threaded TCG does not emulate
	# faithfully (docs/RELIABILITY.md, "Concurrency under TCG").
	if msg=$(bootlog_selftests /tmp/boot.txt); then ok "$msg"; else bad "$msg"; fi
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
	exit
fi
if msg=$(bootlog_kunit /tmp/boot.txt); then ok "$msg"; else bad "$msg"; fi

# The tests below turn events on and off while the other vCPU runs; under multi-threaded TCG
# that patching can Oops on a stale int3 whatever the kernel (tests/lib/hold-tracepoints.sh).
. /src/tests/lib/hold-tracepoints.sh
if msg=$(hold_tracepoints); then
	ok "every tracepoint but lock:* held by two idle instances: the tests patch no code"
else
	bad "$msg"
fi

if [ "$mode" = debug ]; then
	mount -t debugfs none $D 2>/dev/null
	# The first enable fails (injected), the map stays unallocated: fileops_test starts there.
	F=$D/fail_ftrace_stackmap
	if [ -d $F ]; then
		echo 0 > $F/verbose; echo 1 > $F/interval; echo 100 > $F/probability; echo 1 > $F/times
		if echo 1 2>/dev/null > $T/options/stackmap; then
			bad "allocation failure: the option was set although the allocation failed"
		elif grep -q '^last_error: *-12 ' $T/stack_map_stat && [ "$(cat $T/options/stackmap)" = 0 ]; then
			ok "allocation failure injected at the first enable: -ENOMEM, stat says why"
		else
			bad "allocation failure: $(cat $T/stack_map_stat | tr '\n' ' ')"
		fi
		echo 0 > $F/probability
	else
		bad "no $F (CONFIG_FAULT_INJECTION_DEBUG_FS?)"
	fi
	run "fileops_test check" $G/fileops_test check
fi
run "fileops_test random, 20 s, 4 threads" $G/fileops_test random 3 20 4
# Every id against the full stack recorded beside it, across generation switches, with the
# random operations and instance churn running.
run "fileops_test pairs, 60 s" $G/fileops_test pairs 4 60 2 3
# The same in small overwriting buffers, read at the end: retired maps recycled because the
# buffers overwrote their ids, and every id still there resolved (make test-stress runs it
# longer).
run "fileops_test pairs-overwrite, 30 s" $G/fileops_test pairs-overwrite 5 30 2 1
# Two recorders finding the map full at once (one cmpxchg() of the era, the loser takes the
# winner's map): until it is counted, with every id of the buffer then listed.
if out=$(bash /src/tests/debug/switch-races.sh 2>&1); then ok "switch races: $out"; else bad "switch races: $out"; fi
# Generation switches, recycling and the checks of every id against its map, with the
# kernel's checkers watching (SM_FTRACE: the series' ftracetest directory, from scripts/test).
if [ -n "${SM_FTRACE:-}" ]; then
	# On a failure, the case's own messages (its log without the xtrace lines) are shown.
	run "ftracetest stackmap/generations.tc" \
		sh -c "cd $SM_FTRACE && ./ftracetest -l /tmp/ftracetest-logs test.d/stackmap/generations.tc ||
			{ grep -hv '^+' /tmp/ftracetest-logs/*generations* | tail -n 15 | sed 's/^/FAIL: /'; exit 1; }"
fi
run "smbin_test check" $G/smbin_test check
run "smbin_test stress 20 s" $G/smbin_test stress 20

if [ "$mode" = debug ]; then
	# kmemleak reports objects unreferenced for 5 s or more: scan, wait, scan again.
	echo scan > $D/kmemleak; sleep 6; echo scan > $D/kmemleak
	n=$(grep -c '^unreferenced object' $D/kmemleak)
	if [ "$n" -eq 0 ]; then
		ok "kmemleak: no leaks"
	else
		head -n 40 $D/kmemleak
		bad "kmemleak: $n unreferenced objects"
	fi
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
