# SPDX-License-Identifier: GPL-2.0
# Plot of bench/retention/overtime.sh: gnuplot -e "csv='...'; out='...'" overtime.gp
set terminal pngcairo size 900,580 font ",11"
set output out
set datafile separator ","
set key below
set xlabel "workload step"
set ylabel "events kept: ids / full stacks"
set y2label "stacks stored / map capacity"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set grid ytics
set title "A flight recording meeting many more stacks than its map holds"
plot csv using 1:5 skip 1 with linespoints lw 2 title "events kept, ids / full stacks (left)", \
     csv using 1:($11/$13) skip 1 axes x1y2 with lines lw 2 dt 2 title "stacks stored over all generations / capacity (right)", \
     csv using 1:($14/$13) skip 1 axes x1y2 with lines lw 2 dt 4 title "distinct stacks seen / capacity (right)", \
     1.9 with lines lc rgb "gray" dt 3 title "1.9x"
