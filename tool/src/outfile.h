/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile - write an output file the way a shell redirection would, but atomically.
 *
 * "-" or no path is standard output. An existing path that is not a regular file (a FIFO,
 * /dev/null, a terminal) is opened and written directly. Otherwise the output goes to a
 * temporary file next to the final target (symbolic links are followed, so a symlink stays a
 * symlink and its target is replaced) that is renamed over the target only when the caller
 * commits: a failed write leaves neither a partial file nor the temporary. The new file keeps
 * the mode of the file it replaces (and its owner and group where the caller may set them); a
 * file that did not exist gets 0666 & ~umask, as open(O_CREAT) would give it. A hard link to the
 * old file keeps the old contents (rename gives the path a new inode).
 *
 * This part never prints: functions return 0 or a negative errno and o->err_path names the
 * path the error concerns.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdio.h>

struct sm_outfile {
	FILE *f; /* write here between open and close */
	const char *path; /* as given; NULL for standard output */
	char *target; /* @path with every symlink resolved (temp mode only) */
	char *tmp; /* the temporary file, NULL when writing directly or to stdout */
	int direct; /* an existing non-regular file, written in place */
	const char *err_path; /* after a failure: the path it concerns */
};

/*
 * sm_outfile_open() - start writing @path ("-" or NULL: standard output).
 * Return: 0 with o->f open, or a negative errno (-ELOOP: too many symbolic links).
 */
int sm_outfile_open(struct sm_outfile *o, const char *path);

/*
 * sm_outfile_close() - finish: with @commit, flush and rename the temporary over the target;
 * without it (or when anything fails) remove the temporary. Standard output is flushed, not
 * closed. Return: 0, or a negative errno of the first failure (-EIO for a write error).
 */
int sm_outfile_close(struct sm_outfile *o, int commit);

#endif /* OUTFILE_H */
