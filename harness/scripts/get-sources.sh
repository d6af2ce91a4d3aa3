#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the sources the harness compiles into $1 (default build/src):
#   kernel/trace/ftrace_stackmap.[ch], ftrace_stackmap_internal.h
#                               from the project's patch series (kernel/patches/series),
#                               applied to an empty directory, filtered to those paths;
#   lib/{xxhash,siphash}.c, include/linux/{xxhash,jhash,hash,siphash}.h,
#   include/linux/unaligned/packed_struct.h
#                               from build/linux when present, else from Debian's
#                               /usr/src/linux-source-6.12.tar.xz.
# STACKMAP_SRC=tree takes those files from build/linux instead of the series (development
# only; the default is the series, and the tree is used only if the series does not exist).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$here/build/src}
patches=$top/kernel/patches
tree=$top/build/linux
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

mkdir -p "$out/kernel/trace" "$out/lib" "$out/include/linux/unaligned"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=${STACKMAP_SRC:-series}
files="ftrace_stackmap.c ftrace_stackmap.h ftrace_stackmap_internal.h"
if [ "$src" = series ] && [ ! -s "$patches/series" ]; then
	echo "get-sources: $patches/series missing, falling back to $tree" >&2
	src=tree
fi

if [ "$src" = series ]; then
	n=0
	for p in $(grep -v '^[[:space:]]*#' "$patches/series"); do
		(cd "$tmp" && git apply --include='kernel/trace/ftrace_stackmap.[ch]' \
			--include='kernel/trace/ftrace_stackmap_internal.h' "$patches/$p")
		n=$((n + 1))
	done
	for f in $files; do
		if [ ! -f "$tmp/kernel/trace/$f" ]; then
			echo "get-sources: the series ($n patches) does not create kernel/trace/$f" >&2
			exit 1
		fi
		cp "$tmp/kernel/trace/$f" "$out/kernel/trace/"
	done
	echo "get-sources: $files from $n patches of kernel/patches/series"
else
	for f in $files; do cp "$tree/kernel/trace/$f" "$out/kernel/trace/"; done
	echo "get-sources: $files from $tree (not from the series)"
fi

libs="lib/xxhash.c lib/siphash.c include/linux/xxhash.h include/linux/jhash.h include/linux/hash.h include/linux/siphash.h include/linux/unaligned/packed_struct.h"
if [ -f "$tree/lib/xxhash.c" ]; then
	for f in $libs; do cp "$tree/$f" "$out/$f"; done
	echo "get-sources: xxhash/jhash from $tree"
else
	members=""
	for f in $libs; do members="$members linux-source-6.12/$f"; done
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$tmp" $members
	for f in $libs; do cp "$tmp/linux-source-6.12/$f" "$out/$f"; done
	echo "get-sources: xxhash/jhash from $tarball"
fi
