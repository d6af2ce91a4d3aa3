# SPDX-License-Identifier: GPL-2.0
# Inside the KCSAN kernel's VM: load the planted-race module (tests/kcsan/planted_race.c)
# from MODDIR for SECONDS seconds and print what KCSAN saw, as one line:
#   planted race: N data races detected, N reports (N stores, N loads, N overlaps)
# N data races is the delta of KCSAN's data_races counter (debugfs, counted before its
# report rate limit); N reports counts the console reports naming the module's functions;
# N overlaps counts the reader's back-to-back loads of the writer's count that differed
# (the two CPUs ran at the same instant; see planted_race.c).
# Usage: run.sh MODDIR [SECONDS]
dir=$1 secs=${2:-10}
D=/sys/kernel/debug
mount -t debugfs none $D 2>/dev/null
races() { sed -n 's/^data_races: *//p' $D/kcsan; }
before=$(races)
[ -n "$before" ] || { echo "FAIL no data_races counter in $D/kcsan"; exit 1; }
insmod "$dir/planted_race.ko" seconds="$secs" || { echo "FAIL insmod $dir/planted_race.ko"; exit 1; }
after=$(races)
dmesg > /tmp/planted.txt
reports=$(grep -c 'BUG: KCSAN: data-race in planted_race' /tmp/planted.txt)
stores=$(sed -n 's/.*planted_race: writer: \([0-9]*\) stores.*/\1/p' /tmp/planted.txt)
loads=$(sed -n 's/.*planted_race: reader: \([0-9]*\) loads.*/\1/p' /tmp/planted.txt)
overlaps=$(sed -n 's/.*planted_race: reader: .*, \([0-9]*\) overlaps.*/\1/p' /tmp/planted.txt)
echo "planted race: $((after - before)) data races detected, $reports reports ($stores stores, $loads loads, $overlaps overlaps)"
