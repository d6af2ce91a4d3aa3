#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Plots from the benchmark CSV (build/bench/results.csv) with gnuplot:
#   hit-latency.png     single-thread hit latency by depth, per design
#   memory.png          bytes per unique stack (realistic mix) per design and CPU count
#   hot-stack.png       one stack hammered by all threads: throughput by thread count
#   fill.png            distinct stacks lost by fill level
# Usage: sh plot.sh [results.csv] [output dir]
set -eu
csv=${1:-build/bench/results.csv}
dir=${2:-../docs/img}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
designs="stackmap rfc bpf mutex nodedup"

# one data file per design: x y
series() { # series <section> <variant> <metric> <design>
	awk -F, -v s="$1" -v v="$2" -v m="$3" -v d="$4" \
		'$1 == s && $4 == v && $5 == m && $2 == d { print $3, $6 }' "$csv"
}

plot_lines() { # plot_lines <file> <title> <xlabel> <ylabel> <section> <variant> <metric> [logx]
	cmd="set terminal pngcairo size 800,500; set output '$1'; set title '$2';"
	cmd="$cmd set xlabel '$3'; set ylabel '$4'; set grid; set key top left;"
	[ "${8:-}" = logx ] && cmd="$cmd set logscale x 2;"
	plots=""
	for d in $designs; do
		series "$5" "$6" "$7" "$d" >"$tmp/$d.$6.dat"
		[ -s "$tmp/$d.$6.dat" ] || continue
		plots="$plots${plots:+, }'$tmp/$d.$6.dat' using 1:2 with linespoints lw 2 title '$d'"
	done
	gnuplot -e "$cmd plot $plots"
}

plot_lines "$dir/hit-latency.png" "Single-thread hit latency by stack depth (median)" \
	"frames" "ns per call" latency hit ns logx
plot_lines "$dir/insert-latency.png" "Single-thread insert latency by stack depth (median)" \
	"frames" "ns per call" latency insert ns logx
plot_lines "$dir/hot-stack.png" "One hot stack, all threads: aggregate throughput" \
	"threads" "million calls/s" hot "" mops
plot_lines "$dir/fill.png" "Distinct stacks lost by fill level (capacity 4096)" \
	"stacks inserted / capacity" "stacks lost" fill "" lost

# memory: bars per design for the machine's CPU count, 8 and 64 CPUs
awk -F, '$1 == "memory" && $4 == "per_stack" && $3 != "measured" { v[$2 "," $3] = $6; c[$3] = 1; d[$2] = 1 }
END {
	n = 0; for (k in c) cs[n++] = k
	for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (cs[j] + 0 < cs[i] + 0) { t = cs[i]; cs[i] = cs[j]; cs[j] = t }
	printf "design"; for (i = 0; i < n; i++) printf " %scpu", cs[i]; printf "\n"
	split("stackmap rfc bpf mutex nodedup", order, " ")
	for (o = 1; o <= 5; o++) { if (!(order[o] in d)) continue; printf "%s", order[o]; for (i = 0; i < n; i++) printf " %s", v[order[o] "," cs[i]]; printf "\n" }
}' "$csv" >"$tmp/mem.dat"
gnuplot -e "set terminal pngcairo size 800,500; set output '$dir/memory.png';
	set title 'Bytes per unique stack, realistic depth mix (nodedup: per event)';
	set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8;
	set ylabel 'bytes'; set grid ytics; set key top left;
	plot '$tmp/mem.dat' using 2:xtic(1) title columnheader(2),
	     '' using 3 title columnheader(3), '' using 4 title columnheader(4)"
echo "plots written to $dir"
