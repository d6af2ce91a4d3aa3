#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Plots from the benchmark CSV (build/bench/results.csv) with gnuplot:
#   hit-latency.png     single-thread hit latency by depth, per design
#   memory.png          bytes per stored stack (realistic mix) against possible CPUs
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

# memory: bytes per stored stack against possible CPUs, for this map, the RFC design and the
# previous per-CPU design of this map (log scales: the previous one grows linearly)
for d in stackmap rfc previous; do
	awk -F, -v d="$d" '$1 == "memory" && $2 == d && $4 == "per_stack" && $3 + 0 > 0 { print $3, $6 }' \
		"$csv" >"$tmp/mem-$d.dat"
done
gnuplot -e "set terminal pngcairo size 800,500; set output '$dir/memory.png';
	set title 'Bytes per stored stack: 16384 realistic stacks in a map of 16384, by possible CPUs';
	set xlabel 'possible CPUs'; set ylabel 'bytes per stored stack';
	set logscale x 2; set logscale y 10; set grid; set key top left;
	plot '$tmp/mem-stackmap.dat' using 1:2 with linespoints lw 2 title 'stackmap (reference cache)',
	     '$tmp/mem-rfc.dat' using 1:2 with linespoints lw 2 title 'rfc (520-byte elements)',
	     '$tmp/mem-previous.dat' using 1:2 with linespoints lw 2 title 'previous stackmap (per-CPU counts)'"
echo "plots written to $dir"
