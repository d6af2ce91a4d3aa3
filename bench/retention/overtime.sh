#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/retention/overtime.sh: a flight recording that meets many times more stacks than its
# map holds, over time: how many events a fixed overwrite buffer keeps with stack ids against
# full stacks, at every step, and whether every id still resolves. See docs/RETENTION.md.
#
#   bench/retention/overtime.sh [--steps N] [--rounds R] [--kib K] [--bits B] [--seed S]
#                               [--out DIR] [--img FILE] [--timeout SEC]
#
# One VM boot with ftrace_stackmap.bits=B (default 10: 1024 stacks). Two instances trace the
# same events (sched, kmem, syscalls, irq, timer, workqueue, signal, task, filemap) in
# overwrite buffers of K KiB per CPU (default 256): "ids" with options/stackmap, "full"
# without. The seeded workload (workload.c) runs N steps of R rounds (defaults 40, 150); after
# each, both stop and the guest writes one CSV line: the events each buffer holds and their
# ratio, the id events and fallback full stacks in the ids buffer, the ids stack_map does not
# list (must be 0), and the map's switches, recycles, inserts (stacks stored, over all
# generations) and drops, and the distinct stacks the full instance's buffer has held so far
# (a lower bound of the workload's). OUT/overtime.csv, the plot in --img (default OUT/overtime.png).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/retention
steps=40 rounds=150 kib=256 bits=10 seed=11 out=$ROOT/build/overtime img="" timeout=3000
while [ $# -gt 0 ]; do
	case $1 in
	--steps) steps=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--kib) kib=$2; shift 2 ;;
	--bits) bits=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--img) img=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h | --help) sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "overtime: unknown option $1" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$img" ] || img=$out/overtime.png
[ -f "$ROOT/build/obj/arch/x86/boot/bzImage" ] || "$ROOT/scripts/kernel" build
"$HERE/build-workload.sh"
rm -rf "$out/raw"
mkdir -p "$out/raw"
echo "overtime: bits $bits, $kib KiB per CPU, $steps steps of $rounds rounds, seed $seed;" \
	"load $(cut -d' ' -f1-3 /proc/loadavg) ($(date +%H:%M:%S))"
"$ROOT/scripts/vm" run --share "$out/raw" --log "$out/console.log" --timeout "$timeout" \
	--append "ftrace_stackmap.bits=$bits" -- \
	sh /src/bench/retention/overtime-guest.sh "$seed" "$steps" "$rounds" "$kib" \
	sched kmem syscalls irq timer workqueue signal task filemap \
	>"$out/vm-output.log" 2>&1 || { cat "$out/vm-output.log"; echo "overtime: the VM run failed" >&2; exit 1; }
cp "$out/raw/overtime.csv" "$out/overtime.csv"
{
	echo "command: bench/retention/overtime.sh --steps $steps --rounds $rounds --kib $kib --bits $bits --seed $seed"
	echo "guest: 2 vCPUs under QEMU TCG, kernel $(cat "$out/raw/uname" 2>/dev/null)"
	echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
gnuplot -e "csv='$out/overtime.csv'; out='$img'" "$HERE/overtime.gp"
python3 - "$out/overtime.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = [float(x["ratio"]) for x in rows]
last = rows[-1]
print(f"overtime: {len(rows)} steps; ids/full events min {min(r):.3f}x, max {max(r):.3f}x, "
      f"last {r[-1]:.3f}x; unresolved ids {sum(int(x['unresolved']) for x in rows)}; "
      f"switches {last['switches']}, recycled {last['recycled']}, inserts {last['inserts']} "
      f"= {int(last['inserts']) / int(last['capacity']):.1f}x the capacity {last['capacity']}, "
      f"drops {last['drops']}; distinct stacks seen {last['distinct_seen']} = "
      f"{int(last['distinct_seen']) / int(last['capacity']):.1f}x the capacity")
PY
echo "overtime: plot $img; data $out/overtime.csv; $(cat "$out/machine.txt" | tail -1)"
