// SPDX-License-Identifier: GPL-2.0
/*
 * Folded paths shared by the exporters, and the text formats: folded stacks, speedscope JSON
 * (https://www.speedscope.app/file-format-schema.json, built with json-c), and the
 * two-column folded diff.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

/* Label of each function: "name" or "name [module]", interned in p->strs. */
static long ex_func_label(struct pf *p, uint32_t func, uint32_t *cache)
{
	const struct pf_func *f = &p->funcs[func];
	const char *name = pf_str(p, f->name), *mod = pf_str(p, f->module);
	char buf[1024];
	long l;
	int n;

	if (cache[func])
		return cache[func] - 1;
	if (!*mod) {
		cache[func] = f->name + 1;
		return f->name;
	}
	n = snprintf(buf, sizeof(buf), "%s [%s]", name, mod);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	l = pf_intern(p, buf, (size_t)n);
	if (l < 0)
		return l;
	cache[func] = (uint32_t)l + 1;
	return l;
}

static long ex_root_label(struct pf *p, const struct ex_opts *o, const struct pf_sample *s)
{
	char buf[EV_COMM_LEN + 16];
	int n;

	switch (o->by) {
	case EX_BY_EVENT:
		return s->type;
	case EX_BY_COMM:
		return s->comm;
	case EX_BY_PID:
		n = snprintf(buf, sizeof(buf), "%s-%d", pf_str(p, s->comm), s->pid);
		return pf_intern(p, buf, (size_t)n);
	default:
		return -1;
	}
}

static const struct pf *ex_sort_pf;

static int ex_path_cmp(const void *a, const void *b)
{
	const struct ex_path *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->nr && i < y->nr; i++) {
		int c;

		if (x->labels[i] == y->labels[i])
			continue;
		c = strcmp(pf_str(ex_sort_pf, x->labels[i]), pf_str(ex_sort_pf, y->labels[i]));
		if (c)
			return c;
	}
	return x->nr < y->nr ? -1 : (x->nr > y->nr);
}

/* (root label, stack) pairs of ex_paths_build(), by path index */
struct ex_keys {
	uint32_t *root, *stack;
};

static int ex_key_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct ex_keys *t = ctx, *k = key;

	return t->root[idx] == k->root[0] && t->stack[idx] == k->stack[0];
}

int ex_paths_build(struct pf *p, const struct ex_opts *o, struct ex_paths *out)
{
	uint32_t *cache = calloc(p->nfuncs + 1, sizeof(*cache));
	uint32_t *key_root = NULL, *key_stack = NULL;
	struct ex_keys keys;
	struct htab idx;
	size_t i, nlab = 0, k;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	htab_init(&idx, 0);
	key_root = calloc(p->nsamples + 1, sizeof(*key_root));
	key_stack = calloc(p->nsamples + 1, sizeof(*key_stack));
	out->v = calloc(p->nsamples + 1, sizeof(*out->v));
	if (!cache || !key_root || !key_stack || !out->v)
		goto out;
	keys.root = key_root;
	keys.stack = key_stack;
	/* merge samples with the same (root label, stack) */
	for (i = 0; i < p->nsamples; i++) {
		const struct pf_sample *s = &p->samples[i];
		uint64_t v = pf_value(p, s), h;
		struct ex_keys key;
		uint32_t root32, pos;
		long root;
		size_t j;

		if (!v)
			continue;
		root = ex_root_label(p, o, s);
		if (o->by != EX_BY_NONE && root < 0)
			goto out;
		root32 = (uint32_t)root;
		key.root = &root32;
		key.stack = &p->samples[i].stack;
		h = ((uint64_t)root32 * 0x9E3779B97F4A7C15ull) ^
		    ((uint64_t)s->stack * 0xC2B2AE3D27D4EB4Full);
		if (htab_reserve(&idx))
			goto out;
		pos = htab_find(&idx, h, ex_key_eq, &keys, &key, &j);
		if (pos == HTAB_NONE) {
			pos = (uint32_t)out->n++;
			key_root[pos] = root32;
			key_stack[pos] = s->stack;
			out->v[pos].type = s->type;
			htab_insert_at(&idx, j, h, pos);
			nlab += p->stacks[s->stack].nr + (o->by != EX_BY_NONE);
		}
		out->v[pos].value += v;
	}
	out->labels = calloc(nlab + 1, sizeof(*out->labels));
	if (!out->labels)
		goto out;
	nlab = 0;
	for (i = 0; i < out->n; i++) {
		const struct pf_stack *st = &p->stacks[key_stack[i]];
		struct ex_path *path = &out->v[i];

		path->labels = out->labels + nlab;
		if (o->by != EX_BY_NONE)
			path->labels[path->nr++] = key_root[i];
		for (k = st->nr; k > 0; k--) {
			long l =
				ex_func_label(p, p->locs[p->frames[st->first + k - 1]].func, cache);

			if (l < 0)
				goto out;
			path->labels[path->nr++] = (uint32_t)l;
		}
		nlab += path->nr;
	}
	ex_sort_pf = p;
	qsort(out->v, out->n, sizeof(*out->v), ex_path_cmp);
	ret = 0;
out:
	free(cache);
	htab_free(&idx);
	free(key_root);
	free(key_stack);
	if (ret)
		ex_paths_free(out);
	return ret;
}

void ex_paths_free(struct ex_paths *ps)
{
	free(ps->v);
	free(ps->labels);
	memset(ps, 0, sizeof(*ps));
}

static void ex_put_path(const struct pf *p, const struct ex_path *path, FILE *f)
{
	uint32_t i;

	for (i = 0; i < path->nr; i++) {
		if (i)
			fputc(';', f);
		fputs(pf_str(p, path->labels[i]), f);
	}
}

int ex_write_folded(struct pf *p, const struct ex_opts *o, FILE *f)
{
	struct ex_paths ps;
	size_t i;
	int ret = ex_paths_build(p, o, &ps);

	if (ret)
		return ret;
	for (i = 0; i < ps.n; i++) {
		ex_put_path(p, &ps.v[i], f);
		fprintf(f, " %" PRIu64 "\n", ps.v[i].value);
	}
	ex_paths_free(&ps);
	return ferror(f) ? -EIO : 0;
}

/* Speedscope ------------------------------------------------------------------------------ */

/* json-c helpers that keep going after an allocation failure and report it at the end. */
static json_object *ex_j(json_object *o, int *bad)
{
	if (!o)
		*bad = 1;
	return o;
}

static void ex_jset(json_object *obj, const char *key, json_object *v, int *bad)
{
	if (!obj || !v || json_object_object_add(obj, key, v)) {
		json_object_put(v);
		*bad = 1;
	}
}

static void ex_jpush(json_object *arr, json_object *v, int *bad)
{
	if (!arr || !v || json_object_array_add(arr, v)) {
		json_object_put(v);
		*bad = 1;
	}
}

int ex_write_speedscope(struct pf *p, const struct ex_opts *o, FILE *f)
{
	struct ex_paths ps;
	json_object *root, *frames, *profiles;
	uint32_t *frame_of = NULL;
	size_t i, k, first = o->by != EX_BY_NONE;
	int bad = 0, ret;
	const char *text;

	/*
	 * One profile per root label of --by (event type, comm or comm-pid), named by it; the label
	 * is never a frame. --by none: one profile of every stack.
	 */
	ret = ex_paths_build(p, o, &ps);
	if (ret)
		return ret;
	frame_of = calloc(p->strs.n + 1, sizeof(*frame_of));
	root = ex_j(json_object_new_object(), &bad);
	frames = ex_j(json_object_new_array(), &bad);
	profiles = ex_j(json_object_new_array(), &bad);
	if (!frame_of || bad) {
		ret = -ENOMEM;
		json_object_put(frames);
		json_object_put(profiles);
		goto out;
	}
	ex_jset(root, "$schema",
		json_object_new_string("https://www.speedscope.app/file-format-schema.json"), &bad);
	ex_jset(root, "exporter", json_object_new_string("stackmap " SM_VERSION), &bad);
	ex_jset(root, "name", json_object_new_string(o->title ? o->title : "stackmap"), &bad);
	ex_jset(root, "activeProfileIndex", json_object_new_int(0), &bad);
	for (i = 0; i < ps.n;) {
		uint32_t label = first ? ps.v[i].labels[0] : 0;
		json_object *prof = ex_j(json_object_new_object(), &bad);
		json_object *samples = ex_j(json_object_new_array(), &bad);
		json_object *weights = ex_j(json_object_new_array(), &bad);
		uint64_t total = 0;

		for (; i < ps.n && (!first || ps.v[i].labels[0] == label); i++) {
			json_object *stack = ex_j(json_object_new_array(), &bad);

			for (k = first; k < ps.v[i].nr; k++) {
				uint32_t l = ps.v[i].labels[k];

				if (!frame_of[l]) {
					json_object *fo = ex_j(json_object_new_object(), &bad);

					ex_jset(fo, "name", json_object_new_string(pf_str(p, l)),
						&bad);
					ex_jpush(frames, fo, &bad);
					frame_of[l] = (uint32_t)json_object_array_length(frames);
				}
				ex_jpush(stack, json_object_new_int64(frame_of[l] - 1), &bad);
			}
			ex_jpush(samples, stack, &bad);
			ex_jpush(weights, json_object_new_int64((int64_t)ps.v[i].value), &bad);
			total += ps.v[i].value;
		}
		ex_jset(prof, "type", json_object_new_string("sampled"), &bad);
		ex_jset(prof, "name", json_object_new_string(first ? pf_str(p, label) : "all"),
			&bad);
		ex_jset(prof, "unit",
			json_object_new_string(p->opts.offcpu ? "nanoseconds" : "none"), &bad);
		ex_jset(prof, "startValue", json_object_new_int64(0), &bad);
		ex_jset(prof, "endValue", json_object_new_int64((int64_t)total), &bad);
		ex_jset(prof, "samples", samples, &bad);
		ex_jset(prof, "weights", weights, &bad);
		ex_jpush(profiles, prof, &bad);
	}
	ex_jset(root, "shared", json_object_new_object(), &bad);
	if (!bad)
		ex_jset(json_object_object_get(root, "shared"), "frames", frames, &bad);
	else
		json_object_put(frames);
	ex_jset(root, "profiles", profiles, &bad);
	if (bad) {
		ret = -ENOMEM;
		goto out;
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	fputs(text, f);
	fputc('\n', f);
	ret = ferror(f) ? -EIO : 0;
out:
	json_object_put(root);
	free(frame_of);
	ex_paths_free(&ps);
	return ret;
}

/* Diff ------------------------------------------------------------------------------------ */

int ex_diff_build(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize,
		  struct ex_paths *out)
{
	struct ex_paths pa, pb;
	struct tp_strtab keys;
	uint64_t *va = NULL, *vb = NULL, ta = 0, tb = 0;
	size_t cap, nlab = 0, i, n, maxnr = 1;
	uint32_t *tmp = NULL, *types = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	tp_strtab_init(&keys);
	ret = ex_paths_build(a, o, &pa);
	if (ret)
		return ret;
	ret = ex_paths_build(b, o, &pb);
	if (ret) {
		ex_paths_free(&pa);
		return ret;
	}
	ret = -ENOMEM;
	cap = pa.n + pb.n + 1;
	va = calloc(cap, sizeof(*va));
	vb = calloc(cap, sizeof(*vb));
	types = calloc(cap, sizeof(*types));
	for (i = 0; i < pa.n + pb.n; i++) {
		size_t nr = i < pa.n ? pa.v[i].nr : pb.v[i - pa.n].nr;

		if (nr > maxnr)
			maxnr = nr;
	}
	tmp = calloc(maxnr, sizeof(*tmp));
	if (!va || !vb || !types || !tmp)
		goto out;
	for (i = 0; i < pa.n + pb.n; i++) {
		struct ex_path *path = i < pa.n ? &pa.v[i] : &pb.v[i - pa.n];
		uint32_t k, nr = path->nr;
		long key;

		for (k = 0; k < nr; k++) {
			long l = path->labels[k];

			if (i >= pa.n) {
				const char *s = pf_str(b, path->labels[k]);

				l = pf_intern(a, s, strlen(s));
				if (l < 0)
					goto out;
			}
			tmp[k] = (uint32_t)l;
		}
		key = tp_strtab_intern(&keys, (const char *)tmp, nr * sizeof(*tmp));
		if (key < 0)
			goto out;
		if ((size_t)key == keys.n - 1) {
			nlab += nr;
			types[key] = i < pa.n ? path->type : 0;
		}
		if (i < pa.n) {
			va[key] += path->value;
			ta += path->value;
		} else {
			vb[key] += path->value;
			tb += path->value;
		}
	}
	n = keys.n;
	out->v = calloc(n + 1, sizeof(*out->v));
	out->labels = calloc(nlab + 1, sizeof(*out->labels));
	if (!out->v || !out->labels)
		goto out;
	nlab = 0;
	for (i = 0; i < n; i++) {
		struct ex_path *path = &out->v[i];

		path->nr = (uint32_t)(keys.lens[i] / sizeof(uint32_t));
		path->labels = out->labels + nlab;
		memcpy(path->labels, keys.strs[i], keys.lens[i]);
		nlab += path->nr;
		path->value = vb[i];
		path->value_a = va[i];
		if (normalize && ta)
			path->value_a = (uint64_t)((double)va[i] * (double)tb / (double)ta + 0.5);
		path->type = types[i];
	}
	out->n = n;
	ex_sort_pf = a;
	qsort(out->v, out->n, sizeof(*out->v), ex_path_cmp);
	ret = 0;
out:
	if (ret)
		ex_paths_free(out);
	ex_paths_free(&pa);
	ex_paths_free(&pb);
	tp_strtab_free(&keys);
	free(va);
	free(vb);
	free(types);
	free(tmp);
	return ret;
}

int ex_write_diff_folded(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize,
			 FILE *f)
{
	struct ex_paths ps;
	size_t i;
	int ret = ex_diff_build(a, b, o, normalize, &ps);

	if (ret)
		return ret;
	for (i = 0; i < ps.n; i++) {
		ex_put_path(a, &ps.v[i], f);
		fprintf(f, " %" PRIu64 " %" PRIu64 "\n", ps.v[i].value_a, ps.v[i].value);
	}
	ex_paths_free(&ps);
	return ferror(f) ? -EIO : 0;
}
