// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic output files that behave like a shell redirection. See outfile.h for the contract.
 */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SM_OUTFILE_MAX_LINKS 40 /* as the kernel's MAXSYMLINKS */

/* The directory part of @path joined with @rel (a relative symlink target). */
static char *sm_outfile_join_dir(const char *path, const char *rel)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *p = malloc(dlen + strlen(rel) + 1);

	if (!p)
		return NULL;
	memcpy(p, path, dlen);
	strcpy(p + dlen, rel);
	return p;
}

/*
 * Follow @path through symbolic links to the file a write would reach (which may not exist
 * yet: a dangling symlink creates its target, as open(O_CREAT) does). Return: 0 with *@out
 * malloc'ed, or a negative errno.
 */
static int sm_outfile_resolve(const char *path, char **out)
{
	char *cur = strdup(path), *next;
	char link[PATH_MAX];
	int i;

	if (!cur)
		return -ENOMEM;
	for (i = 0; i < SM_OUTFILE_MAX_LINKS; i++) {
		ssize_t n = readlink(cur, link, sizeof(link) - 1);

		if (n < 0) {
			if (errno == EINVAL || errno == ENOENT) {
				*out = cur; /* not a symlink, or nothing there yet */
				return 0;
			}
			free(cur);
			return -errno;
		}
		link[n] = '\0';
		next = link[0] == '/' ? strdup(link) : sm_outfile_join_dir(cur, link);
		free(cur);
		if (!next)
			return -ENOMEM;
		cur = next;
	}
	free(cur);
	return -ELOOP;
}

static mode_t sm_outfile_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

int sm_outfile_open(struct sm_outfile *o, const char *path)
{
	struct stat st;
	int ret, fd, exists;
	mode_t mode;

	memset(o, 0, sizeof(*o));
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	o->err_path = path;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		if (!o->f)
			return -errno;
		o->direct = 1;
		return 0;
	}
	ret = sm_outfile_resolve(path, &o->target);
	if (ret)
		return ret;
	exists = stat(o->target, &st) == 0;
	mode = exists ? st.st_mode & 07777 : 0666 & ~sm_outfile_umask();
	o->tmp = malloc(strlen(o->target) + 16);
	if (!o->tmp) {
		ret = -ENOMEM;
		goto fail;
	}
	sprintf(o->tmp, "%s.tmp-XXXXXX", o->target);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* owner first: fchown() may clear set-id bits that fchmod() then restores */
	if (exists && fchown(fd, st.st_uid, st.st_gid))
		(void)!fchown(fd, (uid_t)-1,
			      st.st_gid); /* not permitted: keep at least the group */
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		ret = -errno;
		close(fd);
		unlink(o->tmp);
		goto fail;
	}
	return 0;
fail:
	o->err_path = path;
	free(o->tmp);
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
	return ret;
}

int sm_outfile_close(struct sm_outfile *o, int commit)
{
	int ret = 0, bad;

	if (!o->f)
		return 0;
	bad = ferror(o->f);
	if (!o->path) {
		if (fflush(o->f) || bad)
			ret = -EIO;
		o->f = NULL;
		return commit ? ret : 0;
	}
	if (fclose(o->f) || bad)
		ret = bad ? -EIO : -errno;
	o->f = NULL;
	if (o->direct)
		return commit ? ret : 0;
	o->err_path = o->path;
	if (!ret && commit && rename(o->tmp, o->target))
		ret = -errno;
	if (ret || !commit)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
	return commit ? ret : 0;
}
