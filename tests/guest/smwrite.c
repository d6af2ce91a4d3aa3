// SPDX-License-Identifier: GPL-2.0
/*
 * smwrite FILE BYTES: write BYTES to FILE in exactly one write() call and print the
 * outcome: "OK", "SHORT <n>", or the errno name (EINVAL, EBUSY, ...). BYTES takes C
 * escapes (\n, \r, \t, \\, \0 and \NNN octal), so empty writes, embedded NULs and binary
 * junk can be sent. Exit status 0 unless the arguments are wrong or FILE cannot be opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static size_t unescape(const char *in, char *out)
{
	size_t n = 0;
	int v, k;

	while (*in) {
		if (*in != '\\') {
			out[n++] = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n': out[n++] = '\n'; in++; break;
		case 'r': out[n++] = '\r'; in++; break;
		case 't': out[n++] = '\t'; in++; break;
		case '\\': out[n++] = '\\'; in++; break;
		case '\0': out[n++] = '\\'; break;
		default:
			for (v = 0, k = 0; k < 3 && *in >= '0' && *in <= '7'; k++, in++)
				v = v * 8 + (*in - '0');
			if (k == 0)
				out[n++] = *in++;
			else
				out[n++] = (char)v;
		}
	}
	return n;
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENODEV: return "ENODEV";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	char buf[4096];
	size_t len;
	ssize_t ret;
	int fd;

	if (argc != 3 || strlen(argv[2]) >= sizeof(buf)) {
		fprintf(stderr, "usage: smwrite FILE BYTES\n");
		return 2;
	}
	len = unescape(argv[2], buf);
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", errname(errno));
		return 1;
	}
	ret = write(fd, buf, len);
	if (ret < 0)
		printf("%s\n", errname(errno));
	else if ((size_t)ret != len)
		printf("SHORT %zd\n", ret);
	else
		printf("OK\n");
	close(fd);
	return 0;
}
