/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syms - kernel symbol tables for address resolution.
 *
 * Sources: a /proc/kallsyms style text file (core and module symbols) and the .symtab of an
 * ELF image (vmlinux) read with libelf, with optional file:line lookups through libdw. All
 * symbols end up in one array sorted by address and searched with a binary search. This
 * library never prints; functions return 0 or a negative errno and fill struct syms_err.
 */
#ifndef SYMS_H
#define SYMS_H

#include <stddef.h>
#include <stdint.h>

struct syms_sym {
	uint64_t addr;
	uint64_t size; /* 0: covers only its own address */
	const char *name;
	const char *mod; /* module name, NULL for the core kernel */
	uint32_t rank; /* preference among aliases at one address, lower wins */
	uint32_t seq; /* input order, to keep sorting deterministic */
	uint32_t flags; /* SYMS_F_* */
};

/* The symbol marks the end of a section (_etext, __*_end, ...): it never resolves an address. */
#define SYMS_F_END 1u

/*
 * Sizes that the input does not give (kallsyms) run to the next symbol, with two limits:
 * never more than SYMS_MAX_DERIVED bytes, and a symbol whose next symbol belongs to another
 * object (core kernel vs a module, or another module), or the last one, ends at the end of its
 * 4 KiB page (SYMS_PAGE): module space is not one function.
 */
#define SYMS_MAX_DERIVED (1ull << 20)
#define SYMS_PAGE	 4096ull

/*
 * An offset beyond this into a symbol is implausible (syms_mismatch()): few kernel functions
 * are 64 KiB long, and symbols of another kernel land frames hundreds of KiB into the wrong
 * function (a recording read with the test fixture's kallsyms: 0x5cfa3 into do_one_initcall).
 */
#define SYMS_FAR_OFFSET (1ull << 16)

/* What syms_mismatch() counts; zero it before the first call, each call adds to it. */
struct syms_match {
	size_t n; /* addresses looked at (0 and the trampoline sentinel are skipped) */
	size_t unresolved; /* covered by no text symbol (core or module) */
	size_t far; /* covered, but more than SYMS_FAR_OFFSET into the symbol */
};

struct syms_err {
	uint64_t line; /* 1-based line for text inputs, 0 if not applicable */
	char msg[160];
};

struct syms {
	struct syms_sym *v;
	size_t n, cap;
	char **bufs; /* owned text buffers that names point into */
	size_t nbufs;
	uint64_t elf_bias; /* runtime address - ELF address (KASLR), from _text */
	void *elf; /* Elf * kept open: ELF names point into it */
	int elf_fd;
	void *dwfl; /* Dwfl * for file:line, NULL without --lines */
	void *dwfl_mod; /* Dwfl_Module * of the vmlinux image */
	uint64_t dwfl_bias;
	int sorted;
};

/* syms_init() - prepare an empty table. */
void syms_init(struct syms *s);

/*
 * syms_load_kallsyms() - add the text symbols of a kallsyms file ("addr type name [\t[mod]]").
 * Lines that do not parse are skipped. Return: 0; -ENODATA when the file holds no text symbol
 * or only zero addresses (kptr_restrict); -errno when it cannot be read; -ENOMEM.
 */
int syms_load_kallsyms(struct syms *s, const char *path, struct syms_err *err);

/*
 * syms_load_kallsyms_owned() - the same from a malloc'ed, NUL-terminated buffer of @len bytes
 * that the table takes over (freed by syms_free(), or at once on failure).
 */
int syms_load_kallsyms_owned(struct syms *s, char *buf, size_t len, struct syms_err *err);

/*
 * syms_load_elf() - add the function symbols of an ELF image. When kallsyms symbols are already
 * loaded and both sides define _text, the core-kernel kallsyms entries are replaced by the ELF
 * ones shifted by the KASLR offset (kallsyms _text - ELF _text); module symbols are kept.
 * @want_lines: also open the DWARF line tables with libdw (for syms_srcline()).
 * Return: 0 or a negative errno (-ENOEXEC: not an ELF image or no symbol table).
 */
int syms_load_elf(struct syms *s, const char *path, int want_lines, struct syms_err *err);

/* syms_finish() - sort, drop aliases, derive missing sizes. Call after the last load. */
void syms_finish(struct syms *s);

/*
 * syms_lookup() - find the symbol that covers @addr.
 * Return: the symbol and its offset in *@off, or NULL when @addr is not covered.
 */
const struct syms_sym *syms_lookup(const struct syms *s, uint64_t addr, uint64_t *off);

/*
 * syms_srcline() - source position of @addr (runtime address) from DWARF.
 * Return: 0 with *@file and *@line set, -ENOENT when unknown, -EOPNOTSUPP without DWARF.
 */
int syms_srcline(const struct syms *s, uint64_t addr, const char **file, int *line);

/*
 * syms_mismatch() - how plausible @n kernel stack addresses are against this table: add to
 * @out the number of addresses looked at, those no symbol covers, and those SYMS_FAR_OFFSET or
 * more into their symbol. When more than half are implausible (syms_match_suspect()), the symbol
 * table most likely does not belong to the recording (another boot, another kernel).
 * Return: 0, or -EINVAL when @s was not finished by syms_finish().
 */
int syms_mismatch(const struct syms *s, const uint64_t *addrs, size_t n, struct syms_match *out);

/* syms_match_suspect() - more than half of the addresses counted in @m are implausible. */
static inline int syms_match_suspect(const struct syms_match *m)
{
	return m->n && (m->unresolved + m->far) * 2 > m->n;
}

/* syms_free() - release everything; @s can be reused after syms_init(). */
void syms_free(struct syms *s);

#endif /* SYMS_H */
