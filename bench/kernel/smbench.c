// SPDX-License-Identifier: GPL-2.0
/*
 * smbench: the in-kernel workload of `make bench-kernel` (bench/kernel/run.sh).
 *
 * A write of "COUNT DEPTH FIRST SAME" to /proc/smbench runs COUNT rounds on the writing
 * thread. A round descends DEPTH levels through smbench_a() and smbench_b() and at the
 * bottom calls smbench_leaf(v), which fires the smbench:smbench_event trace event; the
 * function tracer (set_ftrace_filter smbench_leaf) and a kprobe on smbench_leaf see the
 * same calls. Level k takes smbench_b() when bit (k % 16) of v is set, so every v below
 * 2^16 has a stack of its own: round i uses v = FIRST + i, or v = FIRST in every round
 * when SAME is 1. A read gives "COUNT NANOSECONDS" of the last run (ktime_get_ns()
 * around the loop).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/ktime.h>
#include <linux/mutex.h>

#define CREATE_TRACE_POINTS
#include "smbench_trace.h"

#define SMBENCH_MAX_DEPTH	60

static DEFINE_MUTEX(smbench_lock);
static u64 smbench_last_count, smbench_last_ns;

noinline void smbench_leaf(u32 v)
{
	trace_smbench_event(v);
	/* Not a tail position: keep this frame in the stack. */
	asm volatile("" ::: "memory");
}

static noinline int smbench_b(int level, u32 v);

/* The empty asm after each call keeps the calls out of tail position. */
static noinline int smbench_a(int level, u32 v)
{
	int r;

	if (!level) {
		smbench_leaf(v);
		return 0;
	}
	if ((v >> (level % 16)) & 1)
		r = smbench_b(level - 1, v);
	else
		r = smbench_a(level - 1, v);
	asm volatile("" ::: "memory");
	return r + 1;
}

/* Not the same body as smbench_a(): the compiler would fold the two into one function. */
static noinline int smbench_b(int level, u32 v)
{
	int r;

	if (!level) {
		smbench_leaf(v);
		return 0;
	}
	if ((v >> (level % 16)) & 1)
		r = smbench_b(level - 1, v);
	else
		r = smbench_a(level - 1, v);
	asm volatile("" ::: "memory");
	return r + 2;
}

static ssize_t smbench_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	unsigned int count, depth, first, same, i;
	char buf[64];
	u64 t0, t1;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u %u %u", &count, &depth, &first, &same) != 4 ||
	    depth > SMBENCH_MAX_DEPTH || same > 1)
		return -EINVAL;

	mutex_lock(&smbench_lock);
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++)
		smbench_a(depth, same ? first : first + i);
	t1 = ktime_get_ns();
	smbench_last_count = count;
	smbench_last_ns = t1 - t0;
	mutex_unlock(&smbench_lock);
	return len;
}

static ssize_t smbench_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	char buf[48];
	int n;

	mutex_lock(&smbench_lock);
	n = scnprintf(buf, sizeof(buf), "%llu %llu\n", smbench_last_count,
		      smbench_last_ns);
	mutex_unlock(&smbench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct proc_ops smbench_ops = {
	.proc_write	= smbench_write,
	.proc_read	= smbench_read,
	.proc_lseek	= default_llseek,
};

static struct proc_dir_entry *smbench_entry;

static int __init smbench_init(void)
{
	smbench_entry = proc_create("smbench", 0600, NULL, &smbench_ops);
	return smbench_entry ? 0 : -ENOMEM;
}

static void __exit smbench_exit(void)
{
	proc_remove(smbench_entry);
}

module_init(smbench_init);
module_exit(smbench_exit);
MODULE_DESCRIPTION("Workload for the ftrace stackmap kernel benchmark");
MODULE_LICENSE("GPL");
