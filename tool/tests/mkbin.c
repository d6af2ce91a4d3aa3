// SPDX-License-Identifier: GPL-2.0
/*
 * mkbin - write stack_map_bin test inputs (valid and corrupt) for the stackmap tool tests.
 *
 *   mkbin CASE OUT                     one of the cases listed by "mkbin list"
 *   mkbin addrs OUT ADDR...            one stack (id 1, ref 1) made of the given addresses
 *   mkbin switched OUT SWITCHES ID...  version 2 with that switch count; each id (in increasing
 *                                      order) one stack: io_schedule, vfs_read
 *   mkbin random OUT KALLSYMS NSTACKS NSYMS SEED [uniform]
 *                                      a large random map plus a matching kallsyms file
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC	   0x46534D42u
#define TRAMPOLINE 0x7fffffffull

struct wr {
	unsigned char *p;
	size_t len, cap;
	int swap;
};

static void wr_bytes(struct wr *w, const void *src, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2;
		w->p = realloc(w->p, w->cap);
		if (!w->p) {
			perror("mkbin");
			exit(1);
		}
	}
	memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void wr_u32(struct wr *w, uint32_t v)
{
	if (w->swap)
		v = __builtin_bswap32(v);
	wr_bytes(w, &v, sizeof(v));
}

static void wr_u64(struct wr *w, uint64_t v)
{
	if (w->swap)
		v = __builtin_bswap64(v);
	wr_bytes(w, &v, sizeof(v));
}

static void wr_header(struct wr *w, uint32_t nr_stacks)
{
	wr_u32(w, MAGIC);
	wr_u32(w, 1);
	wr_u32(w, nr_stacks);
	wr_u32(w, 0);
}

static void wr_stack(struct wr *w, uint32_t id, uint32_t ref, uint32_t nr, const uint64_t *ips)
{
	uint32_t i;

	wr_u32(w, id);
	wr_u32(w, nr);
	wr_u32(w, ref);
	wr_u32(w, 0);
	for (i = 0; i < nr; i++)
		wr_u64(w, ips[i]);
}

/* Addresses inside the symbols of tests/fixtures/kallsyms. */
static const uint64_t st_sched[] = {0xffffffff81100048ull, 0xffffffff811000dcull,
				    0xffffffff81100100ull, 0xffffffff80001234ull};
static const uint64_t st_read[] = {0xffffffff81200220ull, 0xffffffff81200130ull,
				   0xffffffff81200010ull, 0xffffffff81300040ull,
				   0xffffffff8130014bull};
static const uint64_t st_ext4[] = {0xffffffffc0001020ull, 0xffffffff81200244ull};
static const uint64_t st_nft[] = {0xffffffffc0002085ull};
static const uint64_t st_tramp[] = {0xffffffff81100010ull, TRAMPOLINE, 0xffffffff81300040ull};

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static void wr_basic(struct wr *w)
{
	wr_header(w, 5);
	wr_stack(w, 3, 1337, N(st_sched), st_sched);
	wr_stack(w, 7, 5, N(st_read), st_read);
	wr_stack(w, 9, 1337, N(st_ext4), st_ext4);
	wr_stack(w, 12, 20, N(st_nft), st_nft);
	wr_stack(w, 40, 0, N(st_tramp), st_tramp);
}

static void put_u32_at(struct wr *w, size_t off, uint32_t v)
{
	if (w->swap)
		v = __builtin_bswap32(v);
	memcpy(w->p + off, &v, sizeof(v));
}

static int build_case(const char *name, struct wr *w)
{
	uint64_t deep[65];
	uint32_t i;

	for (i = 0; i < 65; i++)
		deep[i] = 0xffffffff81100000ull + 4 * i;
	if (!strcmp(name, "basic")) {
		wr_basic(w);
	} else if (!strcmp(name, "basic-swapped")) {
		w->swap = 1;
		wr_basic(w);
	} else if (!strcmp(name, "empty")) {
		wr_header(w, 0);
	} else if (!strcmp(name, "deep")) {
		wr_header(w, 2);
		wr_stack(w, 1, 2, 64, deep);
		wr_stack(w, 2, 1, 0, deep);
	} else if (!strcmp(name, "trampoline")) {
		wr_header(w, 1);
		wr_stack(w, 5, 3, N(st_tramp), st_tramp);
	} else if (!strcmp(name, "trunc-header")) {
		wr_header(w, 0);
		w->len = 10;
	} else if (!strcmp(name, "bad-magic")) {
		wr_header(w, 0);
		put_u32_at(w, 0, 0x12345678);
	} else if (!strcmp(name, "bad-version")) {
		wr_header(w, 0);
		put_u32_at(w, 4, 3);
	} else if (!strcmp(name, "hdr-reserved")) {
		wr_header(w, 0);
		put_u32_at(w, 12, 0xdead);
	} else if (!strcmp(name, "rec-reserved")) {
		wr_basic(w);
		/* second record starts after the header and the 4-frame first record */
		put_u32_at(w, 16 + 16 + 4 * 8 + 12, 1);
	} else if (!strcmp(name, "nr-too-big")) {
		wr_header(w, 2);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
		wr_stack(w, 2, 1, 65, deep);
	} else if (!strcmp(name, "fewer-records")) {
		wr_header(w, 3);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
		wr_stack(w, 2, 1, N(st_ext4), st_ext4);
	} else if (!strcmp(name, "trailing")) {
		wr_header(w, 1);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
		wr_u32(w, 0);
	} else if (!strcmp(name, "trunc-record")) {
		wr_header(w, 2);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
		wr_stack(w, 2, 1, N(st_read), st_read);
		w->len -= 12;
	} else if (!strcmp(name, "trunc-rec-header")) {
		wr_header(w, 2);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
		wr_u32(w, 2);
		wr_u32(w, 1);
	} else if (!strcmp(name, "ids-not-increasing")) {
		wr_header(w, 3);
		wr_stack(w, 4, 1, N(st_nft), st_nft);
		wr_stack(w, 9, 1, N(st_ext4), st_ext4);
		wr_stack(w, 6, 1, N(st_nft), st_nft);
	} else if (!strcmp(name, "dup-id")) {
		w->swap = 1;
		wr_header(w, 2);
		wr_stack(w, 4, 1, N(st_nft), st_nft);
		wr_stack(w, 4, 1, N(st_nft), st_nft);
	} else if (!strcmp(name, "huge-count")) {
		wr_header(w, 0xffffffffu);
		wr_stack(w, 1, 1, N(st_nft), st_nft);
	} else {
		return -1;
	}
	return 0;
}

static const char *const cases[] = {"basic",
				    "basic-swapped",
				    "empty",
				    "deep",
				    "trampoline",
				    "trunc-header",
				    "bad-magic",
				    "bad-version",
				    "hdr-reserved",
				    "rec-reserved",
				    "nr-too-big",
				    "fewer-records",
				    "trailing",
				    "trunc-record",
				    "trunc-rec-header",
				    "ids-not-increasing",
				    "dup-id",
				    "huge-count"};

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic for a given seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/*
 * Random map for benchmarks. Call sites are nsyms / 4 return addresses; with @skew the site of
 * each frame is drawn as the product of two uniform picks, so a few sites (entry code, common
 * helpers) appear in most stacks as in a real kernel; without it every site is equally likely
 * (the cache-unfriendly worst case).
 */
static int build_random(struct wr *w, const char *ksyms, unsigned long nstacks, unsigned long nsyms,
			unsigned long seed, int skew)
{
	const uint64_t base = 0xffffffff81000000ull;
	uint64_t *sym_addr, ips[64];
	unsigned long i, nsites;
	uint64_t *sites;
	FILE *f;

	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	sym_addr = malloc(nsyms * sizeof(*sym_addr));
	nsites = nsyms / 4 + 1;
	sites = malloc(nsites * sizeof(*sites));
	f = fopen(ksyms, "w");
	if (!sym_addr || !sites || !f) {
		perror("mkbin");
		return -1;
	}
	fprintf(f, "%016llx T _text\n", (unsigned long long)base);
	for (i = 0; i < nsyms; i++) {
		sym_addr[i] = base + 0x100 + i * 0x200 + (rng() % 0x80);
		if (i % 10 == 9)
			fprintf(f, "%016llx t mod_func_%lu\t[mod%lu]\n",
				(unsigned long long)sym_addr[i], i, i % 7);
		else
			fprintf(f, "%016llx %c kernel_func_%lu\n", (unsigned long long)sym_addr[i],
				i % 3 ? 't' : 'T', i);
	}
	fclose(f);
	/* Call sites: a limited set of return addresses, as in a real kernel. */
	for (i = 0; i < nsites; i++)
		sites[i] = sym_addr[rng() % nsyms] + 4 + rng() % 0x60;
	wr_header(w, (uint32_t)nstacks);
	for (i = 0; i < nstacks; i++) {
		uint32_t depth = 8 + (uint32_t)(rng() % 17), j;

		for (j = 0; j < depth; j++) {
			uint64_t a = rng() % nsites, b = rng() % nsites;

			ips[j] = sites[skew ? a * b / nsites : a];
		}
		if (i % 1000 == 0)
			ips[depth - 1] = 0xffffffff70000000ull; /* unresolved */
		wr_stack(w, (uint32_t)(i * 2 + 1), (uint32_t)(rng() % 100000), depth, ips);
	}
	free(sym_addr);
	free(sites);
	return 0;
}

int main(int argc, char **argv)
{
	struct wr w = {0};
	FILE *f;
	size_t i;
	int ret = -1;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			puts(cases[i]);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: mkbin CASE OUT | addrs OUT ADDR... | "
				"switched OUT SWITCHES ID... | "
				"random OUT KALLSYMS NSTACKS NSYMS SEED [uniform] | list\n");
		return 2;
	}
	if (!strcmp(argv[1], "addrs")) {
		uint64_t ips[64];
		int n = 0;

		for (i = 3; i < (size_t)argc && n < 64; i++)
			ips[n++] = strtoull(argv[i], NULL, 16);
		wr_header(&w, 1);
		wr_stack(&w, 1, 1, (uint32_t)n, ips);
		ret = 0;
	} else if (!strcmp(argv[1], "switched") && argc >= 4) {
		/* in io_schedule and vfs_read of tests/fixtures/kallsyms */
		static const uint64_t st_io[] = {0xffffffff811000f8ull, 0xffffffff81200208ull};

		wr_header(&w, (uint32_t)(argc - 4));
		put_u32_at(&w, 4, 2);
		put_u32_at(&w, 12, (uint32_t)strtoul(argv[3], NULL, 0));
		for (i = 4; i < (size_t)argc; i++)
			wr_stack(&w, (uint32_t)strtoul(argv[i], NULL, 0), 1, N(st_io), st_io);
		ret = 0;
	} else if (!strcmp(argv[1], "random") && (argc == 7 || argc == 8)) {
		ret = build_random(&w, argv[3], strtoul(argv[4], NULL, 10),
				   strtoul(argv[5], NULL, 10), strtoul(argv[6], NULL, 10),
				   argc == 8 && !strcmp(argv[7], "uniform") ? 0 : 1);
	} else {
		ret = build_case(argv[1], &w);
	}
	if (ret) {
		fprintf(stderr, "mkbin: unknown case '%s'\n", argv[1]);
		return 2;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(w.p, 1, w.len, f) != w.len || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	free(w.p);
	return 0;
}
