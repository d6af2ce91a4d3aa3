#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run every test program of the harness (built by `make test`) with a timeout, sum the
# "RESULT <passed> <failed>" lines they print, and end with exactly one line
# "N passed, N failed". A program that crashes, times out or prints no RESULT counts as one
# failed test. Exit status is non-zero when anything failed.
B=${1:-build}
passed=0
failed=0
log=$B/test-logs
mkdir -p "$log"

run() {
	name=$1
	shift
	out=$log/$name.log
	start=$(date +%s)
	timeout -k 5 "${TEST_TIMEOUT:-150}" "$@" >"$out" 2>&1
	rc=$?
	res=$(grep '^RESULT ' "$out" | tail -1)
	end=$(date +%s)
	if [ -z "$res" ]; then
		echo "FAIL $name: no result (exit $rc), see $out"
		tail -5 "$out"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$res" | cut -d' ' -f2)
	f=$(echo "$res" | cut -d' ' -f3)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exit $rc with no failed test (sanitizer report?), see $out"
		tail -5 "$out"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	grep -E '^(FAIL|  )' "$out" | sed "s/^/  [$name] /"
	echo "$name: $p passed, $f failed ($((end - start)) s)"
}

replay() {
	name=$1
	bin=$2
	run "$name" "$bin" fuzz/corpus
}

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=0 exitcode=67"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"

run unit-gcc "$B/plain/unit"
run unit-asan-ubsan-gcc "$B/asan/unit"
run unit-asan-ubsan-clang "$B/asanclang/unit"
run whitebox-gcc "$B/plain/whitebox"
run whitebox-asan-ubsan-gcc "$B/asan/whitebox"
run whitebox-asan-ubsan-clang "$B/asanclang/whitebox"
run replay-reset-counts-gcc "$B/plain/replay_reset_counts"
run replay-reset-counts-asan-ubsan-gcc "$B/asan/replay_reset_counts"
replay fuzz-corpus-gcc "$B/plain/fuzz_replay"
replay fuzz-corpus-asan-ubsan-gcc "$B/asan/fuzz_replay"
replay fuzz-corpus-asan-ubsan-clang "$B/asanclang/fuzz_replay"
run stress-gcc "$B/plain/stress"
run stress-tsan-clang "$B/tsan/stress"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
