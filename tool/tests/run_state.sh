# Sourced by run.sh: print the fake tracefs settings that record changes ($1 = tracefs dir).
for f in tracing_on buffer_size_kb options/stackmap options/stacktrace stack_map \
	events/sched/sched_switch/enable events/sched/sched_wakeup/enable \
	events/kmem/kmem_cache_alloc/enable; do
	echo "$f=$(cat "$1/$f")"
done
