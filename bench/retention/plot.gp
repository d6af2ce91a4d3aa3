# SPDX-License-Identifier: GPL-2.0
# gnuplot -e "csv='plot.csv'; out='retention.png'" plot.gp   (plot.csv from summarize.py)
# Events retained by a fixed per-CPU buffer, the time window they cover and the workload rounds
# inside that window; the labels are the ratios stack ids / full stacks.
set terminal pngcairo size 1500,500 font "sans,11" noenhanced
set output out
set datafile separator ","
set key top left
set grid ytics
set yrange [0:*]
set offsets graph 0.1, graph 0.1, graph 0.15, 0
set logscale x 2
set xlabel "per-CPU ring buffer (KiB)"
set xtics ("256" 256, "512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192)
set multiplot layout 1,3 title "Same seeded workload (3000 rounds) and events (sched_switch, kmem_cache_alloc, sys_enter_openat), QEMU TCG guest, 2 vCPUs\nlabels: stack ids / full stacks"
set title "events retained (thousands)"
plot csv using 1:($2/1000) skip 1 with linespoints lw 2 pt 7 title "no stacks", \
     csv using 1:($3/1000) skip 1 with linespoints lw 2 pt 5 title "full stacks", \
     csv using 1:($4/1000) skip 1 with linespoints lw 2 pt 9 title "stack ids (stackmap)", \
     csv using 1:($4/1000):(sprintf("%.2fx", $8)) skip 1 with labels offset 0,1.2 notitle
set title "time window covered (s, emulated guest)"
plot csv using 1:5 skip 1 with linespoints lw 2 pt 7 title "no stacks", \
     csv using 1:6 skip 1 with linespoints lw 2 pt 5 title "full stacks", \
     csv using 1:7 skip 1 with linespoints lw 2 pt 9 title "stack ids (stackmap)", \
     csv using 1:7:(sprintf("%.2fx", $9)) skip 1 with labels offset 0,1.2 notitle
set title "workload rounds inside the window"
plot csv using 1:10 skip 1 with linespoints lw 2 pt 7 title "no stacks", \
     csv using 1:11 skip 1 with linespoints lw 2 pt 5 title "full stacks", \
     csv using 1:12 skip 1 with linespoints lw 2 pt 9 title "stack ids (stackmap)", \
     csv using 1:12:(sprintf("%.2fx", $13)) skip 1 with labels offset 0,1.2 notitle
unset multiplot
