#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/nostackmap/run.sh: with CONFIG_FTRACE_STACKMAP=n the series leaves ftrace as it was.
# Boots the unpatched base kernel (build/obj-base) twice and the series built with
# CONFIG_FTRACE_STACKMAP=n (build/obj-nostackmap) once, both with the same configuration
# otherwise, each running tests/nostackmap/guest.sh, and compares what the guest wrote: the
# tracefs listing with modes and owners, the trace options, the contents of the files that do
# not change between boots (README, every event's format...), the traceable functions, and
# the trace of a fixed workload (syscall and process events with their stack traces and the
# function tracer on four functions) with timestamps, CPUs, irq flags and the pid taken out.
# The two base boots must agree too: that shows the comparison is stable. Last, the series
# with the stackmap (build/obj, its option off): the workload's trace must be the base's, and
# its tracefs listing and options may only add to the base's (the additions are printed).
# And the series' own ftracetest cases (test.d/stackmap) must all be UNSUPPORTED on the =n
# kernel.
#
#   tests/nostackmap/run.sh [--no-build] [--inject 'VM-OPTIONS']
#
# --no-build uses the kernels as they are; --inject passes extra scripts/vm options to the
# boot of the =n kernel only, to see the comparison fail (e.g. --inject '--append
# trace_options=sym-addr'). Output in build/nostackmap/; ends with "N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/nostackmap
export BUILD
# shellcheck source=tests/lib/compare.sh
. "$ROOT/tests/lib/compare.sh"
compare_args nostackmap "$@"
[ ${#cases[@]} -eq 0 ] || { echo "nostackmap: unknown argument ${cases[0]}" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT"
t_start=$SECONDS

image() { echo "$BUILD/$1/arch/x86/boot/bzImage"; }

[ $do_build = 1 ] && build_kernels "$OUT" --base --nostackmap ""

step "configuration"
# The same configuration but for the series' own options.
if same_config obj-base obj-nostackmap "$OUT/config.diff" &&
	grep -qx '# CONFIG_FTRACE_STACKMAP is not set' "$BUILD/obj-nostackmap/.config"; then
	ok "obj-base and obj-nostackmap: same .config but for CONFIG_FTRACE_STACKMAP (off)"
else
	head -n 20 "$OUT/config.diff" 2>/dev/null
	bad "obj-base and obj-nostackmap configurations differ (or are missing)"
fi

# boot NAME OBJ [VM-OPTIONS...]: guest.sh in one boot of OBJ's kernel, its files in $OUT/NAME.
boot() {
	local name=$1 obj=$2 dir=$OUT/$1 t0=$SECONDS
	shift 2
	mkdir -p "$dir"
	step "boot $name ($obj)"
	if "$ROOT/scripts/vm" run --share "$dir" --log "$OUT/$name-console.log" --timeout 900 "$@" \
		--kernel "$(image "$obj")" -- bash /src/tests/nostackmap/guest.sh >"$OUT/$name.log" 2>&1 &&
		[ -s "$dir/trace.txt" ]; then
		normalize "$dir"
		ok "boot $name: tracefs and workload recorded ($((SECONDS - t0)) s)"
	else
		tail -n 10 "$OUT/$name.log"
		bad "boot $name (log $OUT/$name.log)"
	fi
}

# The trace without what changes from run to run: the task's pid, the CPU, the irq flags
# and the timestamp of each event line, and the workload's pid wherever an event shows it.
normalize() { # dir
	local pid
	pid=$(cat "$1/pid.txt")
	sed -E -e 's/^ *(.*)-[0-9]+ +\[[0-9]+\] +[^ ]+ +[0-9]+\.[0-9]+: /\1: /' \
		-e "s/\\b$pid\\b/PID/g" "$1/trace.txt" >"$1/trace.norm"
}

FILES="listing.txt options.txt contents.txt functions.txt trace.norm"

# same A B: every file of FILES identical in $OUT/A and $OUT/B.
same() { # a b what
	local f n
	for f in $FILES; do
		if [ ! -f "$OUT/$1/$f" ] || [ ! -f "$OUT/$2/$f" ]; then
			bad "$3: ${f%.*} (missing)"
		elif diff -u "$OUT/$1/$f" "$OUT/$2/$f" >"$OUT/$1-$2-${f%.*}.diff"; then
			rm -f "$OUT/$1-$2-${f%.*}.diff"
			n=$(grep -c . "$OUT/$1/$f")
			ok "$3: ${f%.*} identical ($n lines)"
		else
			sed -n '3,30p' "$OUT/$1-$2-${f%.*}.diff" | sed 's/^/        /'
			bad "$3: ${f%.*} differs ($OUT/$1-$2-${f%.*}.diff)"
		fi
	done
}

# only_added A B F: B's file F holds every line of A's (B may add lines); the added lines are
# printed.
only_added() { # a b file what
	local gone added
	gone=$(comm -23 <(LC_ALL=C sort "$OUT/$1/$3") <(LC_ALL=C sort "$OUT/$2/$3"))
	added=$(comm -13 <(LC_ALL=C sort "$OUT/$1/$3") <(LC_ALL=C sort "$OUT/$2/$3"))
	if [ -z "$gone" ]; then
		ok "$4: ${3%.*} only adds $(echo "$added" | grep -c .) lines to the base's"
		echo "$added" | grep . | sed 's/^/        + /'
	else
		echo "$gone" | head -n 20 | sed 's/^/        - /'
		bad "$4: ${3%.*} lacks $(echo "$gone" | grep -c .) lines of the base's"
	fi
}

boot base obj-base
boot base-again obj-base
boot nostackmap obj-nostackmap "${inject[@]}"
boot stackmap obj

# The series' own ftracetest cases on the =n kernel: their requires: lines must make every
# one UNSUPPORTED (none may fail or pass without the feature).
step "the series' ftracetest cases on CONFIG_FTRACE_STACKMAP=n"
share=$BUILD/share-nostackmap-ft
rm -rf "$share"
mkdir -p "$share"
cp -a "$BUILD/linux/tools/testing/selftests/ftrace" "$share/ftrace"
n_cases=$(find "$share/ftrace/test.d/stackmap" -name '*.tc' | wc -l)
"$ROOT/scripts/vm" run --share "$share" --log "$OUT/ftracetest-console.log" --timeout 900 \
	--kernel "$(image obj-nostackmap)" -- \
	bash -c 'cd /host/ftrace && ./ftracetest -l /tmp/ft-logs test.d/stackmap' \
	>"$OUT/ftracetest.log" 2>&1
n_unsup=$(grep -c -E '^\[[0-9]+\] .*\[UNSUPPORTED\]$' "$OUT/ftracetest.log")
n_all=$(grep -c -E '^\[[0-9]+\] .*\[[A-Z]+\]$' "$OUT/ftracetest.log")
if [ "$n_cases" -gt 0 ] && [ "$n_unsup" -eq "$n_cases" ] && [ "$n_all" -eq "$n_cases" ]; then
	ok "the series' $n_cases ftracetest cases are all UNSUPPORTED on the =n kernel"
else
	grep -E '^\[[0-9]+\] ' "$OUT/ftracetest.log" | sed 's/^/        /'
	bad "the series' ftracetest cases on the =n kernel: $n_unsup of $n_cases UNSUPPORTED, $n_all results (log $OUT/ftracetest.log)"
fi
rm -rf "$share"

step "compare"
same base base-again "base twice (the comparison is stable)"
same base nostackmap "base vs CONFIG_FTRACE_STACKMAP=n"
if [ -f "$OUT/stackmap/trace.norm" ] && diff -u "$OUT/base/trace.norm" "$OUT/stackmap/trace.norm" \
	>"$OUT/base-stackmap-trace.diff"; then
	rm -f "$OUT/base-stackmap-trace.diff"
	ok "base vs the series with stackmap (option off): workload trace identical"
else
	sed -n '3,30p' "$OUT/base-stackmap-trace.diff" | sed 's/^/        /'
	bad "base vs the series with stackmap (option off): workload trace differs"
fi
if [ -f "$OUT/stackmap/listing.txt" ]; then
	only_added base stackmap listing.txt "base vs the series with stackmap"
	only_added base stackmap options.txt "base vs the series with stackmap"
fi

echo "        (took $((SECONDS - t_start)) s)"
echo "nostackmap: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
