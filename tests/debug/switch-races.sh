# SPDX-License-Identifier: GPL-2.0
# Two recorders that find the map full at once: both CPUs record every event but lock's with
# its stack into an instance with the smallest map and small overwriting buffers, so that
# the map fills, switches and is recycled over and over, until stack_map_stat counts a
# switch that another context made first (switch_races), or 120 s. Then every id in the
# buffer must be listed by stack_map. Run by tests/debug/run.sh under multi-threaded TCG,
# after hold_tracepoints. Prints one line; exits 0 on success.
T=/sys/kernel/tracing
I=$T/instances/races
stat() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" $I/stack_map_stat; }
mkdir $I || { echo "cannot create $I"; exit 1; }
echo 10 > $I/stack_map_bits
echo 1 > $I/options/overwrite
echo 16 > $I/buffer_size_kb
echo 1 > $I/options/stackmap
for s in $I/events/*/; do
	case $s in */events/lock/ | */events/ftrace/) ;; *) echo 1 > $s/enable ;; esac
done
echo 1 > $I/options/stacktrace
echo 1 > $I/tracing_on
load() { while [ ! -e /tmp/races-stop ]; do ls -R $T/events > /dev/null 2>&1; cat /proc/*/stat > /dev/null 2>&1; done; }
rm -f /tmp/races-stop
taskset -c 0 bash -c "T=$T; $(declare -f load); load" &
taskset -c 1 bash -c "T=$T; $(declare -f load); load" &
t0=$SECONDS
while [ "$(stat switch_races)" -lt 1 ] && [ $((SECONDS - t0)) -lt 120 ]; do sleep 1; done
touch /tmp/races-stop
wait
echo 0 > $I/tracing_on
races=$(stat switch_races)
msg="$(stat switches) switches, $races of them raced by another context, $(stat recycled) recycled in $((SECONDS - t0)) s"
grep -o '<stack_id [0-9]*>' $I/trace | tr -d '<>' | awk '{ print $2 }' | sort -u > /tmp/races-ids
i=0
until cat $I/stack_map > /tmp/races-map 2> /dev/null; do
	i=$((i + 1))
	[ $i -le 10 ] || { echo "stack_map: 10 reads failed"; exit 1; }
done
awk '/^stack_id / { print $2 }' /tmp/races-map | sort -u > /tmp/races-listed
missing=$(grep -cvxFf /tmp/races-listed /tmp/races-ids)
echo 0 > $I/events/enable
echo 0 > $I/options/stacktrace
rmdir $I
echo "$msg; $(wc -l < /tmp/races-ids) distinct ids in the buffer, $missing not listed by stack_map"
[ "$races" -ge 1 ] && [ "$missing" -eq 0 ]
