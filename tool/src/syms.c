// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables for the stackmap tool: kallsyms text, ELF .symtab (libelf) and DWARF lines
 * (libdw). See syms.h for the contract.
 */
#define _GNU_SOURCE
#include "syms.h"
#include "smbin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SYMS_NO_ELF
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwfl.h>
#endif

__attribute__((format(printf, 3, 4))) static int syms_fail(struct syms_err *err, int ret,
							   const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return ret;
}

void syms_init(struct syms *s)
{
	memset(s, 0, sizeof(*s));
	s->elf_fd = -1;
}

static int syms_has_suffix(const char *name, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n > k && !strcmp(name + n - k, suf);
}

/* "_e" or "_s" then lowercase letters ending in text, data or bss: _etext, _sinittext, _edata. */
static int syms_is_short_marker(const char *name, size_t n, char which)
{
	size_t i;

	if (n < 4 || name[0] != '_' || name[1] != which)
		return 0;
	for (i = 2; i < n; i++)
		if (name[i] < 'a' || name[i] > 'z')
			return 0;
	return syms_has_suffix(name, n, "text") || syms_has_suffix(name, n, "data") ||
	       syms_has_suffix(name, n, "bss");
}

/*
 * End markers: a name that starts with '_' and is "_end", "_e...text/data/bss" (_etext,
 * _einittext, _edata), "__end_*", "__stop_*", or ends in "_end" or "_stop"
 * (__entry_text_end, __irqentry_text_end, __softirqentry_text_end, __bss_stop). They mark where
 * a section stops, not a function: they never resolve an address, and the symbol before them
 * ends at them.
 */
static int syms_is_end_marker(const char *name)
{
	size_t n = strlen(name);

	if (name[0] != '_')
		return 0;
	if (!strcmp(name, "_end") || syms_is_short_marker(name, n, 'e'))
		return 1;
	if (!strncmp(name, "__end_", 6) || !strncmp(name, "__stop_", 7))
		return 1;
	return syms_has_suffix(name, n, "_end") || syms_has_suffix(name, n, "_stop");
}

/*
 * Start markers ("__sched_text_start", "_stext", "_sinittext", "__start___ksymtab") share
 * their address with the first function after them; the function is the better name.
 */
static int syms_is_start_marker(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(name, "_text") || syms_is_short_marker(name, n, 's'))
		return 1;
	if (!strncmp(name, "__start_", 8))
		return 1;
	return name[0] == '_' && syms_has_suffix(name, n, "_start");
}

/*
 * Alias rank and flags of a marker: a function at the same address names it better (+3), a
 * start marker better than an end marker (+6), which must not hide what starts there.
 */
static uint32_t syms_marker_rank(const char *name, uint32_t *flags)
{
	*flags = 0;
	if (syms_is_end_marker(name)) {
		*flags = SYMS_F_END;
		return 6;
	}
	return syms_is_start_marker(name) ? 3 : 0;
}

static int syms_push(struct syms *s, uint64_t addr, uint64_t size, const char *name,
		     const char *mod, uint32_t rank)
{
	struct syms_sym *nv;
	uint32_t flags;

	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;

		nv = realloc(s->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	rank += syms_marker_rank(name, &flags);
	s->v[s->n] = (struct syms_sym){.addr = addr,
				       .size = size,
				       .name = name,
				       .mod = mod,
				       .rank = rank,
				       .seq = (uint32_t)s->n,
				       .flags = flags};
	s->n++;
	s->sorted = 0;
	return 0;
}

static int syms_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Rank of a kallsyms type letter among aliases: global text before local before weak. */
static int syms_kallsyms_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 't':
		return 1;
	case 'W':
	case 'w':
		return 2;
	default:
		return -1; /* not a text symbol: ignored */
	}
}

int syms_load_kallsyms(struct syms *s, const char *path, struct syms_err *err)
{
	size_t len;
	char *buf;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	ret = smbin_read_file(path, &buf, &len);
	if (ret)
		return syms_fail(err, ret, "%s", strerror(-ret));
	return syms_load_kallsyms_owned(s, buf, len, err);
}

int syms_load_kallsyms_owned(struct syms *s, char *buf, size_t len, struct syms_err *err)
{
	size_t nadded = 0, nonzero = 0;
	char *p, *end, **nb;
	uint64_t lineno = 0;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	nb = realloc(s->bufs, (s->nbufs + 1) * sizeof(*nb));
	if (!nb) {
		free(buf);
		return -ENOMEM;
	}
	s->bufs = nb;
	s->bufs[s->nbufs++] = buf;

	p = buf;
	end = buf + len;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		char *q, *name, *mod = NULL;
		uint64_t addr = 0;
		int digits = 0, rank, v;
		char type;

		if (!eol)
			eol = end;
		*eol = '\0';
		lineno++;
		q = p;
		p = eol + 1;
		while ((v = syms_hexval(*q)) >= 0 && digits < 16) {
			addr = addr << 4 | (uint64_t)v;
			q++;
			digits++;
		}
		if (!digits || *q != ' ' || !q[1] || q[2] != ' ')
			continue;
		type = q[1];
		rank = syms_kallsyms_rank(type);
		if (rank < 0)
			continue;
		name = q + 3;
		q = name;
		while (*q && *q != '\t' && *q != ' ')
			q++;
		if (q == name)
			continue;
		if (*q) {
			*q++ = '\0';
			while (*q == '\t' || *q == ' ')
				q++;
			if (*q == '[') {
				char *close = strchr(q, ']');

				if (close && close > q + 1) {
					*close = '\0';
					mod = q + 1;
				}
			}
		}
		if (addr)
			nonzero++;
		ret = syms_push(s, addr, 0, name, mod, (uint32_t)rank);
		if (ret)
			return ret;
		nadded++;
	}
	if (!nadded)
		return syms_fail(err, -ENODATA, "no text symbols found");
	if (!nonzero)
		return syms_fail(err, -ENODATA, "all symbol addresses are zero (kptr_restrict?)");
	return 0;
}

static int syms_cmp(const void *a, const void *b)
{
	const struct syms_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

void syms_finish(struct syms *s)
{
	size_t i, out = 0;

	if (!s->n) {
		s->sorted = 1;
		return;
	}
	qsort(s->v, s->n, sizeof(*s->v), syms_cmp);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].addr == 0)
			continue;
		if (out && s->v[out - 1].addr == s->v[i].addr)
			continue; /* alias: the better ranked one was kept */
		s->v[out++] = s->v[i];
	}
	s->n = out;
	/*
	 * Sizes that the input did not give run to the next symbol (an end marker included), at
	 * most SYMS_MAX_DERIVED; before a symbol of another object, or as the last one, no
	 * further than the end of the symbol's page (see SYMS_MAX_DERIVED in syms.h).
	 */
	for (i = 0; i < s->n; i++) {
		struct syms_sym *v = &s->v[i];
		uint64_t page_end = (v->addr | (SYMS_PAGE - 1)) + 1;
		uint64_t end = page_end;

		if (v->size || (v->flags & SYMS_F_END))
			continue;
		if (i + 1 < s->n) {
			const struct syms_sym *nx = &s->v[i + 1];
			int same = (!v->mod && !nx->mod) ||
				   (v->mod && nx->mod && !strcmp(v->mod, nx->mod));

			end = nx->addr;
			if (!same && end > page_end)
				end = page_end;
		}
		if (end < v->addr) /* page_end wrapped at the top of the address space */
			end = UINT64_MAX;
		v->size = end - v->addr;
		if (v->size > SYMS_MAX_DERIVED)
			v->size = SYMS_MAX_DERIVED;
	}
	s->sorted = 1;
}

int syms_mismatch(const struct syms *s, const uint64_t *addrs, size_t n, struct syms_match *out)
{
	size_t i;

	if (!s || !s->sorted)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct syms_sym *sym;
		uint64_t off;

		if (!addrs[i] || addrs[i] == SMBIN_TRAMPOLINE)
			continue;
		out->n++;
		sym = syms_lookup(s, addrs[i], &off);
		if (!sym)
			out->unresolved++;
		else if (off >= SYMS_FAR_OFFSET)
			out->far++;
	}
	return 0;
}

const struct syms_sym *syms_lookup(const struct syms *s, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = s->n;
	const struct syms_sym *sym;

	if (!s->n || addr < s->v[0].addr)
		return NULL;
	/* Invariant: v[lo].addr <= addr, and every index >= hi has v[].addr > addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	sym = &s->v[lo];
	if (sym->flags & SYMS_F_END)
		return NULL;
	if (addr - sym->addr >= sym->size && addr != sym->addr)
		return NULL;
	*off = addr - sym->addr;
	return sym;
}

#ifndef SYMS_NO_ELF
static const struct syms_sym *syms_find_name(const struct syms *s, const char *name, int core)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if ((!core || !s->v[i].mod) && strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

static const Dwfl_Callbacks syms_dwfl_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int syms_open_dwarf(struct syms *s, const char *path, struct syms_err *err)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias = 0;
	Dwfl *dwfl;

	dwfl = dwfl_begin(&syms_dwfl_callbacks);
	if (!dwfl)
		return syms_fail(err, -ENOMEM, "libdw: %s", dwfl_errmsg(-1));
	mod = dwfl_report_offline(dwfl, "vmlinux", path, -1);
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0 || !dwfl_module_getdwarf(mod, &bias)) {
		dwfl_end(dwfl);
		return syms_fail(err, -EOPNOTSUPP, "no DWARF line information");
	}
	s->dwfl = dwfl;
	s->dwfl_mod = mod;
	s->dwfl_bias = bias;
	return 0;
}

int syms_load_elf(struct syms *s, const char *path, int want_lines, struct syms_err *err)
{
	const struct syms_sym *ktext;
	uint64_t elf_text = 0;
	int have_text = 0, ret = 0;
	size_t shstrndx, i, added = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (s->elf)
		return syms_fail(err, -EBUSY, "only one ELF image is supported");
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return syms_fail(err, -errno, "%s", strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		ret = syms_fail(err, -ENOEXEC, "not an ELF image");
		goto fail;
	}
	s->elf = elf;
	s->elf_fd = fd;

	/* First pass: find _text to compute the KASLR offset against kallsyms. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsym = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < nsym; i++) {
			const char *name;
			GElf_Sym sym;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && strcmp(name, "_text") == 0) {
				elf_text = sym.st_value;
				have_text = 1;
			}
		}
	}
	ktext = s->sorted || s->n ? syms_find_name(s, "_text", 1) : NULL;
	if (ktext && have_text) {
		size_t out = 0;

		s->elf_bias = ktext->addr - elf_text;
		/* Keep only module symbols from kallsyms; the ELF image covers the core. */
		for (i = 0; i < s->n; i++)
			if (s->v[i].mod)
				s->v[out++] = s->v[i];
		s->n = out;
	}

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsym = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < nsym; i++) {
			GElf_Shdr tsh;
			Elf_Scn *tscn;
			const char *name;
			GElf_Sym sym;
			int type, rank;

			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_NOTYPE)
				continue;
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			tscn = elf_getscn(elf, sym.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &tsh) || !(tsh.sh_flags & SHF_EXECINSTR))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name || name[0] == '$')
				continue;
			rank = (type == STT_FUNC ? 0 : 2) +
			       (GELF_ST_BIND(sym.st_info) != STB_GLOBAL);
			ret = syms_push(s, sym.st_value + s->elf_bias, sym.st_size, name, NULL,
					(uint32_t)rank);
			if (ret)
				return ret;
			added++;
		}
	}
	if (!added)
		return syms_fail(err, -ENOEXEC, "no function symbols in .symtab");
	if (want_lines)
		return syms_open_dwarf(s, path, err);
	return 0;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int syms_srcline(const struct syms *s, uint64_t addr, const char **file, int *line)
{
	Dwfl_Line *l;
	const char *f;
	int lineno = 0;

	if (!s->dwfl_mod)
		return -EOPNOTSUPP;
	l = dwfl_module_getsrc(s->dwfl_mod, addr - s->elf_bias + s->dwfl_bias);
	if (!l)
		return -ENOENT;
	f = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	if (!f || lineno <= 0)
		return -ENOENT;
	*file = f;
	*line = lineno;
	return 0;
}
#else
int syms_load_elf(struct syms *s, const char *path, int want_lines, struct syms_err *err)
{
	(void)s;
	(void)path;
	(void)want_lines;
	return syms_fail(err, -EOPNOTSUPP, "built without ELF/DWARF support");
}

int syms_srcline(const struct syms *s, uint64_t addr, const char **file, int *line)
{
	(void)s;
	(void)addr;
	(void)file;
	(void)line;
	return -EOPNOTSUPP;
}
#endif

void syms_free(struct syms *s)
{
	size_t i;

#ifndef SYMS_NO_ELF
	if (s->dwfl)
		dwfl_end(s->dwfl);
	if (s->elf)
		elf_end(s->elf);
#endif
	if (s->elf_fd >= 0)
		close(s->elf_fd);
	for (i = 0; i < s->nbufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
	free(s->v);
	syms_init(s);
}
