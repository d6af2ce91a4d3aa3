#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/retention/run.sh: how many events, and how much time, a fixed per-CPU ring buffer keeps
# with no stacks, with full stacks and with stack ids. See docs/RETENTION.md.
#
#   bench/retention/run.sh [--sizes "256 1024 4096"] [--rounds N] [--seed S] [--out DIR]
#                          [--img FILE] [--timeout SEC] [--defs] [--analyze-only]
#
# One VM boot. For each per-CPU buffer size (KiB), the same seeded workload
# (bench/retention/workload.c) is recorded three times with the same events
# (sched:sched_switch, kmem:kmem_cache_alloc, syscalls:sys_enter_openat): none (events only),
# full (options/stacktrace), ids (options/stackmap + options/stacktrace). The raw recordings
# land in OUT/raw/<size>/<mode>/; OUT/results.csv, OUT/ratios.csv and OUT/results.md hold the
# numbers and the plot goes to --img (default OUT/retention.png). --defs adds a fourth
# recording per size, defs (ids with stack_map_defs: the cost of the definitions).
# --analyze-only redoes the tables and the plot from an earlier run's OUT/raw without booting.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/retention
sizes="256 1024 4096" rounds=3000 seed=7 out=$ROOT/build/retention img="" timeout=900 vm=1
modes="none full ids"
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--img) img=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--defs) modes="none full ids defs"; shift ;;
	--analyze-only) vm=0; shift ;;
	-h | --help) sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "retention: unknown option $1" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$img" ] || img=$out/retention.png

analyze() {
	python3 "$HERE/summarize.py" "$out"
	gnuplot -e "csv='$out/plot.csv'; out='$img'" "$HERE/plot.gp"
	echo "retention: plot $img; tables $out/results.md; raw data $out/raw"
}
if [ $vm = 0 ]; then
	analyze
	exit 0
fi

[ -f "$ROOT/build/obj/arch/x86/boot/bzImage" ] || "$ROOT/scripts/kernel" build
"$HERE/build-workload.sh"

rm -rf "$out/raw"
mkdir -p "$out/raw"
echo "retention: one VM boot, sizes ($sizes) KiB per CPU x ($modes), seed $seed," \
	"$rounds rounds; booting ($(date +%H:%M:%S))"
start=$(date +%s)
# scripts/vm shows the guest's output in blocks only: show the guest's progress file instead.
# shellcheck disable=SC2086
"$ROOT/scripts/vm" run --share "$out/raw" --log "$out/console.log" --timeout "$timeout" -- \
	env MODES="$modes" bash /src/bench/retention/guest-all.sh "$seed" "$rounds" $sizes \
	>"$out/vm-output.log" 2>&1 &
vm=$!
shown=0
while kill -0 $vm 2>/dev/null; do
	sleep 3
	[ -f "$out/raw/progress" ] || continue
	tail -n +$((shown + 1)) "$out/raw/progress" | sed "s/^/retention [$(($(date +%s) - start))s] /"
	shown=$(wc -l <"$out/raw/progress")
done
wait $vm || { cat "$out/vm-output.log"; echo "retention: the VM run failed" >&2; exit 1; }
tail -n +$((shown + 1)) "$out/raw/progress" 2>/dev/null || true
echo "retention: VM done in $(($(date +%s) - start)) s; analysing"
{
	echo "machine: $(nproc) host cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guest: 2 vCPUs under QEMU TCG, kernel $(cat "$out/raw/uname" 2>/dev/null)"
	echo "command: bench/retention/run.sh --sizes \"$sizes\" --rounds $rounds --seed $seed" \
		"$([ "$modes" = "none full ids" ] || echo --defs)"
	echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
analyze
