#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/stress/run.sh: the pairs tests for as long as you like (`make test-stress`;
# docs/RELIABILITY.md, "Every id against the stack recorded beside it").
#
#   tests/stress/run.sh [--kver 6.12|7.3] [--kcsan] [--seconds N] [--wrap-seconds N] [--seed S]
#
# Builds the debug kernel (KASAN, lockdep, kmemleak; --kcsan: the KCSAN kernel) of
# the series if needed and boots it once under multi-threaded TCG, --strict, with every
# tracepoint held (tests/lib/hold-tracepoints.sh), to run `fileops_test pairs` (consumed
# streams) and `fileops_test pairs-overwrite` (small overwriting buffers, where a retired
# map is recycled once the buffers have overwritten its ids) for N seconds each (default
# 600; the debug kernel's test run gives them 60 and 30), then `fileops_test pairs-wrap`:
# consumed streams until the switch count passes 8192, so that ids come back with other
# stacks and each is checked across the wrap (at most --wrap-seconds, default 3600; 0 leaves
# it out). Prints each one's summary and "N passed, N failed"; exits non-zero on any failure
# or kernel report.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
kver=6.12 variant=debug secs=600 wrap_secs=3600 seed=7
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--kcsan) variant=kcsan; shift ;;
	--seconds) secs=$2; shift 2 ;;
	--wrap-seconds) wrap_secs=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	*) echo "stress: unknown option $1 (--kver, --kcsan, --seconds, --wrap-seconds, --seed)" >&2
	   exit 2 ;;
	esac
done
case $kver in 6.12) obj=$BUILD/obj-$variant ;; 7.3) obj=$BUILD/obj-7.3-$variant ;;
*) echo "stress: --kver 6.12 or 7.3" >&2; exit 2 ;; esac
logs=$BUILD/test-logs-stress
mkdir -p "$logs" "$BUILD/guest"
echo "stress: building the $variant kernel ($kver) if needed"
"$ROOT/scripts/kernel" --kver "$kver" build "--$variant" >"$logs/kernel-build.log" 2>&1 ||
	{ tail -n 20 "$logs/kernel-build.log"; echo "stress: the kernel does not build" >&2; exit 1; }
"$ROOT/scripts/uapi-header" "$BUILD/uapi" >/dev/null &&
	gcc -static -O2 -Wall -Wextra -Werror -I"$BUILD/uapi" -o "$BUILD/guest/fileops_test" \
		"$ROOT/tests/guest/fileops_test.c" ||
	{ echo "stress: fileops_test does not build" >&2; exit 1; }
# The guest script: hold the tracepoints, then each test, its summary lines and its verdict.
cat >"$logs/guest.sh" <<GUEST
. /src/tests/lib/hold-tracepoints.sh
hold_tracepoints || { echo "FAIL hold_tracepoints"; exit 1; }
rc=0
for mode in pairs pairs-overwrite; do
	/src/build/guest/fileops_test \$mode $seed $secs 2 1 > /tmp/out 2>&1 || rc=1
	grep -E '^# pairs|^# id |^not ok|passed, .* failed' /tmp/out | sed "s/^/\$mode: /"
done
if [ $wrap_secs -gt 0 ]; then
	/src/build/guest/fileops_test pairs-wrap $seed $wrap_secs 0 > /tmp/out 2>&1 || rc=1
	grep -E '^# pairs|^# id |^not ok|passed, .* failed' /tmp/out | sed "s/^/pairs-wrap: /"
fi
exit \$rc
GUEST
"$ROOT/scripts/vm" run --strict --tcg-threads multi --kernel "$obj/arch/x86/boot/bzImage" \
	--append "ftrace_stackmap.bits=10 pci=noacpi" --log "$logs/console.log" \
	--timeout $((2 * secs + wrap_secs + 900)) -- bash /src/"${logs#"$ROOT"/}"/guest.sh
rc=$?
[ $rc = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed (exit $rc; console log $logs/console.log)"
exit $rc
