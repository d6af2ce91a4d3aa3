#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tcg/run.sh: what multi-threaded TCG does to code patching, on the unpatched kernel
# (`make test-tcg`; docs/RELIABILITY.md, "Concurrency under TCG").
#
#   tests/tcg/run.sh [--kernel IMAGE] [--seconds N] [--boots N]
#
# Boots the kernel (default: the unpatched 6.12 of `scripts/kernel build --base`, built if
# missing) with tests/tcg/patching.sh, which turns a sched_switch event on and off while every
# CPU context-switches, in three ways: multi-threaded TCG (N boots, default 3), multi-threaded
# TCG after hold_tracepoints (tests/lib/hold-tracepoints.sh, what the debug and KCSAN boots
# do), and single-threaded TCG. Prints one line per boot: the toggles made, or where the
# kernel Oopsed. Exits 0 when the outcome is the one the tests rely on: an Oops only without
# the hold under multi-threaded TCG, and none with the hold or single-threaded TCG.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
kernel="" secs=60 boots=3
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--boots) boots=$2; shift 2 ;;
	*) echo "tcg: unknown option $1 (--kernel IMAGE, --seconds N, --boots N)" >&2; exit 2 ;;
	esac
done
if [ -z "$kernel" ]; then
	kernel=$BUILD/obj-base/arch/x86/boot/bzImage
	if [ ! -f "$kernel" ]; then
		"$ROOT/scripts/kernel" build --base >"$BUILD/tcg-kernel-build.log" 2>&1 ||
			{ tail -n 20 "$BUILD/tcg-kernel-build.log"; echo "tcg: the base kernel does not build" >&2; exit 1; }
	fi
fi
logs=$BUILD/test-logs-tcg
mkdir -p "$logs"
status=0

# boot NAME THREADS [hold]: prints the outcome; returns 0 if the kernel Oopsed, 1 if the
# toggling ran to its end, 2 if neither
boot() {
	local name=$1 threads=$2 log=$logs/$1.log out where
	out=$("$ROOT/scripts/vm" run --tcg-threads "$threads" --kernel "$kernel" --log "$log" \
		--timeout $((secs + 240)) -- bash /src/tests/tcg/patching.sh "$secs" ${3:-} 2>&1)
	where=$(grep -m1 -A2 'Oops: int3' "$log" | grep -m1 -o 'RIP: 0010:[^ ]*')
	if grep -q 'Oops' "$log"; then
		printf '%-22s Oops: int3 at %s, %s s after boot\n' "$name" "${where#RIP: 0010:}" \
			"$(grep -m1 'Oops' "$log" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')"
		return 0
	fi
	if grep -q '^patching:' <<<"$out"; then
		printf '%-22s %s\n' "$name" "$(grep -m1 '^patching:' <<<"$out")"
		return 1
	fi
	printf '%-22s no result (log %s)\n' "$name" "$log"
	return 2
}

echo "kernel: $kernel; $secs s of toggling per boot"
for i in $(seq "$boots"); do
	boot "multi-$i" multi; [ $? = 0 ] || status=1
done
boot multi-hold multi hold; [ $? = 1 ] || status=1
boot single single; [ $? = 1 ] || status=1
echo "tcg: $( [ $status = 0 ] && echo "as expected" || echo "NOT as expected"): an Oops only under multi-threaded TCG without the hold"
exit $status
