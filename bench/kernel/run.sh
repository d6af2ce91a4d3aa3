#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/kernel/run.sh: what the stackmap option costs an event in the kernel (`make
# bench-kernel`; docs/KERNEL-COST.md has the method and the results).
#
#   bench/kernel/run.sh [--n N] [--depth D] [--reps R] [--clocks "time icount"] [--out DIR]
#
# Builds the benchmark kernel (scripts/kernel build --bench: the paths kernel with modules;
# KVER=7.3 for mainline) and bench/kernel/smbench.c against it, and boots it twice, running
# bench/kernel/guest.sh: once timed by the guest's clock, once under QEMU's -icount, where
# the clock counts instructions. For a trace event with options/stacktrace, the function
# tracer with func_stack_trace and a kprobe with the stacktrace trigger: R rounds (--reps,
# default 11; 3 for instructions, which repeat exactly) of one run per mode of N events
# (default 2000, each with its own stack of DEPTH+8 frames, default DEPTH 40): no stacks,
# full stacks, full stacks again (the null run: what the clock reads for the same work
# twice), and stackmap with the map warm, every stack new, and both maps full. Prints
# the median cost per event of each and the ratios to full stacks round by round, writes
# them to OUT/results.md (default build/bench-kernel) with what one rep movsb costs on the
# same clock (bench/kernel/repcount.c), and exits non-zero when a guest
# check failed (events missing from the buffer, ids where full stacks were due, drops...).
# --clocks icount boots only the instruction count (half the time, for development).
# Run it alone on the machine: every other process skews the times.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
n=2000 depth=40 reps=11 out=$BUILD/bench-kernel clocks="time icount"
while [ $# -gt 0 ]; do
	case $1 in
	--n) n=$2; shift 2 ;;
	--depth) depth=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--clocks) clocks=$2; shift 2 ;;
	-h | --help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-kernel: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ -n "${clocks// /}" ] || { echo "bench-kernel: --clocks names no clock (time, icount)" >&2; exit 2; }
for clock in $clocks; do
	case $clock in time | icount) ;; *) echo "bench-kernel: unknown clock $clock" >&2; exit 2 ;; esac
done
KSUFFIX=""
[ "${KVER:-6.12}" = 6.12 ] || KSUFFIX=-$KVER
tree=$BUILD/linux$KSUFFIX obj=$BUILD/obj$KSUFFIX-bench mod=$out/module
mkdir -p "$out"
"$ROOT/scripts/kernel" build --bench
rm -rf "$mod"
mkdir -p "$mod"
cp "$ROOT/bench/kernel/smbench.c" "$ROOT/bench/kernel/smbench_trace.h" "$ROOT/bench/kernel/Kbuild" "$mod/"
gcc -static -O2 -Wall -Wextra -Werror -o "$mod/repcount" "$ROOT/bench/kernel/repcount.c" ||
	{ echo "bench-kernel: repcount did not build" >&2; exit 1; }
# Module.symvers comes from the kernel's own modules target (none are configured: quick).
make -s -C "$tree" O="$obj" -j"$(nproc)" modules >"$out/module-build.log" 2>&1
make -s -C "$tree" O="$obj" M="$mod" modules >>"$out/module-build.log" 2>&1 ||
	{ tail -n 20 "$out/module-build.log"; echo "bench-kernel: smbench.ko did not build" >&2; exit 1; }
kver=$(cd "$tree" && make -s kernelversion 2>/dev/null || echo ?)
rc=0
: >"$out/results.md"
# Two boots. time: the guest's clock, under plain TCG (noisy: compare modes round by round).
# icount: QEMU's -icount shift=0, where the guest's clock advances 1 ns per instruction
# executed, so the same table counts instructions per event (exact and repeatable, but
# blind to caches and memory traffic; 3 rounds are enough).
for clock in $clocks; do
	if [ $clock = time ]; then qemu_args="" r=$reps; else qemu_args="-icount shift=0,sleep=off" r=3; fi
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "bench-kernel: $clock: load average before: $load; booting $obj ($(date +%H:%M:%S))"
	VM_QEMU_ARGS="$qemu_args" "$ROOT/scripts/vm" run --kernel "$obj/arch/x86/boot/bzImage" \
		--share "$mod" --tcg-threads single --log "$out/console-$clock.log" --timeout 1800 \
		-- bash /src/bench/kernel/guest.sh "$n" "$depth" "$r" >"$out/guest-$clock.log" 2>&1 || rc=$?
	grep -E '^(FILL|DEPTH|FAIL|guest:)' "$out/guest-$clock.log" || true
	unit="ns per event (guest clock, TCG)"
	[ $clock = time ] || unit="instructions per event (QEMU -icount shift=0: 1 ns = 1 instruction)"
	{
		echo "### $unit"
		echo
		python3 "$ROOT/bench/kernel/summarize.py" "$out/guest-$clock.log" --meta "kernel: $(basename "$obj") ($kver), N=$n, DEPTH=$depth, rounds=$r, TCG single-threaded; host load average before $load, after $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo
		# bench/kernel/repcount.c: how the guest's clock counts one rep movsb (the copy
		# of a full stack's frames into the ring buffer is one).
		echo "one \`rep movsb\` of N bytes, on the same clock (bench/kernel/repcount.c):"
		echo
		echo "| bytes | 0 | 8 | 384 | 1024 | 4096 |"
		echo "|---|---|---|---|---|---|"
		echo "| per copy | $(sed -n 's/^REP [0-9]* //p' "$out/guest-$clock.log" | paste -sd'|' | sed 's/|/ | /g') |"
		echo
	} | tee -a "$out/results.md"
done
echo "bench-kernel: tables in $out/results.md, guest output in $out/guest-*.log"
[ $rc = 0 ] || { echo "bench-kernel: a guest run failed (exit $rc; $out/guest-*.log)" >&2; exit 1; }
