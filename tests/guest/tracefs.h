/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the guest test programs (static, header only). */
#ifndef GUEST_TRACEFS_H
#define GUEST_TRACEFS_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define T "/sys/kernel/tracing/"

/* Write @val to a tracefs file in one write(); returns 0 or -errno. */
static inline int twrite(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

#endif /* GUEST_TRACEFS_H */
