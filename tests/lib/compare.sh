# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The counters and the kernel builds of the comparisons with the unpatched kernel, sourced by
# tests/upstream/run.sh and tests/nostackmap/run.sh (they set ROOT).

PASSED=0 FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "  ok    $*"; }
bad() { FAILED=$((FAILED + 1)); echo "  FAIL  $*"; }
step() { echo "== $* ($(date +%H:%M:%S))"; }

# build_kernels OUT VARIANT...: `scripts/kernel build VARIANT` for each (an empty VARIANT is
# the series), one check each, the log in OUT/build-VARIANT.log.
build_kernels() {
	local out=$1 v log
	shift
	for v in "$@"; do
		step "build ${v:-the series}"
		log=$out/build${v:-"-series"}.log
		# shellcheck disable=SC2086 # an empty variant is no argument
		if "$ROOT/scripts/kernel" build $v >"$log" 2>&1; then
			ok "kernel builds (${v:-the series})"
		else
			tail -n 20 "$log"
			bad "kernel build ${v} (log $log)"
		fi
	done
}
