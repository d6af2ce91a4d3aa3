// SPDX-License-Identifier: GPL-2.0
/*
 * A planted data race for the KCSAN kernel (tests/kcsan/run.sh, started by scripts/test
 * --kcsan): one kthread bound to CPU 0 writes a shared variable with plain stores, one bound
 * to CPU 1 reads it with plain loads, for `seconds` seconds, then both stop and the module
 * stays loaded. Nothing else touches the variable, so KCSAN can only see the race when the
 * two CPUs run at the same time: a watchpoint set up by one access must be hit by the other
 * CPU's access during KCSAN's delay (80 us for tasks). Under single-threaded TCG the vCPUs
 * take turns, so that happens only when QEMU switches vCPUs inside such a delay.
 *
 * The reader also measures the overlap without KCSAN: the writer publishes its count in
 * planted_tick with a marked store (no watchpoint, no delay), and the reader loads it twice
 * back to back. The two loads differ only if the writer ran between them, which with
 * vCPUs taking turns needs a vCPU switch between two adjacent instructions.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned int seconds = 10;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long the two threads race (default 10)");

static unsigned long planted_var;	/* the racy variable: plain accesses only */
static unsigned long planted_sink;	/* keeps the reader's loads */
static unsigned long planted_tick;	/* the writer's count, marked accesses only */
static unsigned long planted_until;	/* jiffies at which both threads stop */
static DECLARE_COMPLETION(writer_done);
static DECLARE_COMPLETION(reader_done);

static noinline void planted_race_write(unsigned long v)
{
	planted_var = v;
}

static noinline unsigned long planted_race_read(void)
{
	return planted_var;
}

static int planted_writer(void *arg)
{
	unsigned long n = 0;

	while (time_before(jiffies, READ_ONCE(planted_until))) {
		planted_race_write(++n);
		WRITE_ONCE(planted_tick, n);
		if (!(n & 1023))
			cond_resched();
	}
	pr_info("planted_race: writer: %lu stores\n", n);
	complete(&writer_done);
	return 0;
}

static int planted_reader(void *arg)
{
	unsigned long n = 0, overlaps = 0, a, b;

	while (time_before(jiffies, READ_ONCE(planted_until))) {
		WRITE_ONCE(planted_sink, planted_sink + planted_race_read());
		a = READ_ONCE(planted_tick);
		b = READ_ONCE(planted_tick);
		overlaps += a != b;
		if (!(++n & 1023))
			cond_resched();
	}
	pr_info("planted_race: reader: %lu loads, %lu overlaps\n", n, overlaps);
	complete(&reader_done);
	return 0;
}

static int __init planted_race_init(void)
{
	struct task_struct *w, *r;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1)) {
		pr_err("planted_race: needs CPUs 0 and 1 online\n");
		return -ENODEV;
	}
	WRITE_ONCE(planted_until, jiffies + msecs_to_jiffies(seconds * 1000));
	w = kthread_create_on_cpu(planted_writer, NULL, 0, "planted_w/%u");
	if (IS_ERR(w))
		return PTR_ERR(w);
	r = kthread_create_on_cpu(planted_reader, NULL, 1, "planted_r/%u");
	if (IS_ERR(r)) {
		kthread_stop(w);
		return PTR_ERR(r);
	}
	pr_info("planted_race: racing on CPUs 0 and 1 for %u s\n", seconds);
	wake_up_process(w);
	wake_up_process(r);
	wait_for_completion(&writer_done);
	wait_for_completion(&reader_done);
	pr_info("planted_race: done\n");
	return 0;
}
module_init(planted_race_init);

MODULE_DESCRIPTION("A planted data race between two CPUs, for the KCSAN test");
MODULE_LICENSE("GPL");
