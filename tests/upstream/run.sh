#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/upstream/run.sh: no regression anywhere in ftrace. Runs the kernel's whole upstream
# ftracetest (every directory of tools/testing/selftests/ftrace/test.d) in one boot of the
# patched kernel and in one boot of the unpatched base with the same configuration, then
# compares the result of every case. The base carries the series' fixes that its base-fixes
# file lists (7.3: kernel/patches-7.3/base-fixes, the x86 ftrace fix without which the
# unpatched 7.3.4 panics in direct/ftrace-direct.tc); 6.12 has none. Both kernels are the
# upstream-suite configuration (kernel/config/upstream.config on top of the paths kernel:
# probes of every kind, BTF arguments, the latency tracers, the function profiler, modules
# with the sample modules the cases load): `scripts/kernel build --upstream`
# (build/obj-upstream) and `--upstream-base` (build/obj-upstream-base). Passes when every case
# has the same result on both; prints the cases that differ, both kernels' summary counts, and
# the cases that pass on neither, with their reason (from tests/upstream/known.txt, else the
# message the case logged).
#
#   tests/upstream/run.sh [--kver 6.12|7.3] [--parallel] [--no-build] [--inject 'VM-OPTIONS']
#                         [CASE.tc|DIR ...]
#
# --kver 7.3 runs it on mainline (the 7.3 series; kernels build/obj-7.3-upstream[-base]).
# --parallel boots the two kernels at the same time (for an otherwise idle machine).
# CASE/DIR (relative to test.d, e.g. 00basic or ftrace/func_cpumask.tc) run only those.
# --no-build uses the kernels as they are; --inject passes extra scripts/vm options to the
# patched kernel's boot only, to see the comparison fail (e.g. --inject '--smp 1').
# Output in build/upstream (7.3: build/upstream-7.3; per kernel: NAME.log, NAME-console.log,
# NAME-logs/ with every case's log); ends with "N passed, N failed". What `make
# test-upstream` (6.12) and `make test-upstream KVER=7.3` run.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KVER=${KVER:-6.12}
parallel=0
rest=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) KVER=${2:-}; shift 2 || shift ;;
	--parallel) parallel=1; shift ;;
	*) rest+=("$1"); shift ;;
	esac
done
set -- "${rest[@]}"
case $KVER in
6.12) KSUFFIX="" ;;
7.3) KSUFFIX=-7.3 ;;
*) echo "upstream: --kver $KVER: 6.12 or 7.3" >&2; exit 2 ;;
esac
export KVER
OUT=$BUILD/upstream$KSUFFIX
OBJ=obj$KSUFFIX-upstream
KNOWN=$ROOT/tests/upstream/known.txt
export BUILD
# shellcheck source=tests/lib/compare.sh
. "$ROOT/tests/lib/compare.sh"
compare_args upstream "$@"
rm -rf "$OUT"
mkdir -p "$OUT"
t_start=$SECONDS

[ $do_build = 1 ] && build_kernels "$OUT" --upstream --upstream-base

step "configuration and test suite (Linux $KVER)"
if same_config $OBJ $OBJ-base "$OUT/config.diff"; then
	ok "$OBJ and $OBJ-base: same .config but for the series' CONFIG_FTRACE_STACKMAP*"
else
	head -n 20 "$OUT/config.diff" 2>/dev/null
	bad "$OBJ and $OBJ-base configurations differ (or are missing)"
fi
# Both kernels run the upstream suite as the base has it; what the series adds there (its own
# cases) or changes is named, not run.
FT=$BUILD/linux$KSUFFIX-base/tools/testing/selftests/ftrace
if [ -x "$FT/ftracetest" ]; then
	ok "both kernels run the base's ftracetest ($(find "$FT/test.d" -name '*.tc' | wc -l) cases)"
else
	bad "no ftracetest in $FT"
fi
git -C "$BUILD/linux$KSUFFIX" diff --name-status stackmap-base HEAD -- tools/testing/selftests/ftrace |
	sed 's/^/        the series: /'

# The case files in ftracetest's order (sorted per argument, then the instance-flagged ones
# again), so that result N can be named by its file. The cases of tests/upstream/crash.txt
# for this kernel version are left out: ftracetest gets the list of files.
CRASH=$ROOT/tests/upstream/crash.txt
case_files() {
	local a list
	list=$(cd "$FT" && for a in "${@:-test.d}"; do find "$a" -name '*.tc' | LC_ALL=C sort; done |
		grep -v -x -F -f <(awk -F '\t' -v k="$KVER" '$1 == k { print $2 }' "$CRASH"; echo /))
	echo "$list" >"$OUT/cases.txt"
	echo "$list" | (cd "$FT" && xargs grep -l '^#[ 	]*flags:.*instance') |
		sed 's/$/ (instance)/' >>"$OUT/cases.txt"
}
args=()
for c in "${cases[@]}"; do args+=("test.d/$c"); done
case_files "${args[@]}"
mapfile -t args < <(grep -v ' (instance)$' "$OUT/cases.txt")

# boot NAME OBJ [VM-OPTIONS...]: ftracetest in one boot of OBJ's kernel; NAME.results holds
# "N<TAB>RESULT" per case, NAME.status the VM's exit status and the seconds it took.
boot() {
	local name=$1 obj=$2 share=$BUILD/share-upstream$KSUFFIX-$1 t0=$SECONDS rc
	shift 2
	step "ftracetest on $name ($obj)"
	rm -rf "$share"
	mkdir -p "$share"
	cp -a "$FT" "$share/ftrace"
	# The kernel's modules (modules.dep from the build's depmod), copied into the guest's
	# /lib/modules for the cases that modprobe a sample module.
	cp -a "$BUILD/$obj/modroot" "$share/modroot" 2>/dev/null
	# The logs are written to the guest's /tmp and copied to the share at the end; -k keeps
	# every case's log, where the reason of an UNSUPPORTED or UNRESOLVED case is.
	cat >"$share/run.sh" <<RUN
[ -d /host/modroot/lib/modules ] && cp -a /host/modroot/lib/modules /lib/
cd /host/ftrace && ./ftracetest -k -l /tmp/ftracetest-logs ${args[*]}
rc=\$?
cp -a /tmp/ftracetest-logs /host/logs
exit \$rc
RUN
	"$ROOT/scripts/vm" run --share "$share" --log "$OUT/$name-console.log" --timeout 5400 "$@" \
		--kernel "$BUILD/$obj/arch/x86/boot/bzImage" -- bash /host/run.sh >"$OUT/$name.log" 2>&1
	rc=$?
	rm -rf "$OUT/$name-logs"
	cp -a "$share/logs" "$OUT/$name-logs" 2>/dev/null
	# ftracetest's own log; the console output (where kernel messages can split a line) only
	# when the boot did not get to the copy.
	local src=$OUT/$name-logs/ftracetest.log
	[ -f "$src" ] || src=$OUT/$name.log
	sed -n -E 's/^\[([0-9]+)\].*\[([A-Z]+)\]$/\1\t\2/p' "$src" >"$OUT/$name.results"
	echo "$rc $((SECONDS - t0))" >"$OUT/$name.status"
	rm -rf "$share"
}

# check NAME: did NAME's boot give a result for every case?
check() {
	local name=$1 n want rc secs
	read -r rc secs <"$OUT/$name.status"
	n=$(wc -l <"$OUT/$name.results")
	want=$(wc -l <"$OUT/cases.txt")
	if [ "$n" -eq "$want" ] && [ "$rc" -le 1 ]; then
		ok "ftracetest ran all $n cases on $name ($secs s)"
	else
		tail -n 5 "$OUT/$name.log" | sed 's/^/        /'
		bad "ftracetest on $name: $n of $want results, vm exit $rc (log $OUT/$name.log)"
	fi
}

# --parallel boots both kernels at once (each VM takes one host core under single-threaded
# TCG): half the time on an otherwise idle 2-core machine.
if [ $parallel = 1 ]; then
	boot base $OBJ-base &
	boot patched $OBJ "${inject[@]}"
	wait
else
	boot patched $OBJ "${inject[@]}"
	boot base $OBJ-base
fi
check patched
check base

step "compare"
# name N: the case file of result N; desc N: its description in the base's log.
name() { sed -n "$1p" "$OUT/cases.txt"; }
summary() { # results-file
	local r out=""
	for r in PASS FAIL UNRESOLVED UNTESTED UNSUPPORTED XFAIL UNDEFINED; do
		out="$out $r $(awk -v r=$r '$2 == r' "$1" | wc -l),"
	done
	echo "${out%,}"
}
echo "        patched:$(summary "$OUT/patched.results")"
echo "        base:   $(summary "$OUT/base.results")"
join -t '	' -a 1 -a 2 -e MISSING -o 0,1.2,2.2 <(sort "$OUT/patched.results") \
	<(sort "$OUT/base.results") | sort -n >"$OUT/both.results"
ndiff=0
while IFS='	' read -r n p b; do
	if [ "$p" = "$b" ]; then
		PASSED=$((PASSED + 1))
	else
		ndiff=$((ndiff + 1))
		bad "[$n] $(name "$n"): $p on the patched kernel, $b on the base"
	fi
done <"$OUT/both.results"
[ $ndiff -eq 0 ] && echo "  ok    every one of $(wc -l <"$OUT/both.results") cases has the same result on both kernels"

# Why a case passes on neither: tests/upstream/known.txt ("path<TAB>reason"), else the last
# message (not a shell trace line) in the base's log of the case.
reason() { # n
	local file why log
	file=$(name "$1")
	why=$(awk -F '\t' -v f="${file% (instance)}" '$1 == f { print $2 }' "$KNOWN" 2>/dev/null)
	if [ -z "$why" ]; then
		log=$(ls "$OUT"/base-logs/"$1"-*-log.* 2>/dev/null | head -n 1)
		[ -n "$log" ] && why=$(grep -v -e '^+' -e '^execute' -e '^[[:space:]]*$' "$log" | tail -n 1)
	fi
	echo "${why:-no reason found}"
}
# The failures first, then the cases the configuration does not support.
echo "        not passing on either kernel (the same on both):"
for r in FAIL UNRESOLVED UNTESTED UNDEFINED UNSUPPORTED; do
	while IFS='	' read -r n p b; do
		if [ "$p" != "$r" ] || [ "$b" != "$r" ]; then continue; fi
		printf '        %-11s [%s] %s: %s\n' "$p" "$n" "$(name "$n")" "$(reason "$n")"
	done <"$OUT/both.results"
done

# What was not run at all: the cases that crash the base itself (those in the part of the
# suite asked for).
in_run() { # case file
	local c
	[ ${#cases[@]} -eq 0 ] && return 0
	for c in "${cases[@]}"; do
		case $1 in "test.d/${c%/}" | "test.d/${c%/}/"*) return 0 ;; esac
	done
	return 1
}
while IFS='	' read -r k file why; do
	[ "$k" = "$KVER" ] && in_run "$file" || continue
	printf '        %-11s %s: %s\n' "NOT RUN" "$file" "$why"
done < <(grep -v '^#' "$CRASH")

# The Checkbashisms meta-test checks the test scripts, not the kernel, and perl under TCG is
# ~25 times slower than here (~10 minutes a kernel): it runs here instead, the way the case
# runs it, and is reported without counting (in the guest it is UNRESOLVED on both kernels).
if command -v checkbashisms >/dev/null; then
	if out=$(cd "$FT" && checkbashisms ftracetest test.d/functions 2>&1 &&
		find test.d -name '*.tc' -exec checkbashisms {} + 2>&1); then
		echo "        selftest/bashisms.tc, run on the host: PASS"
	else
		echo "        selftest/bashisms.tc, run on the host: FAIL"
		echo "$out" | grep -v -e 'does not appear to have a #! interpreter' -e 'may get strange results' |
			sed 's/^/          /'
	fi
fi

# The series' own cases (test.d/stackmap, with its library) must pass the same meta-test:
# they are counted.
SM=$BUILD/linux$KSUFFIX/tools/testing/selftests/ftrace/test.d/stackmap
if ! command -v checkbashisms >/dev/null; then
	bad "no checkbashisms on the host (apt-get install devscripts) for the series' cases"
elif out=$(checkbashisms "$SM"/*.tc "$SM"/*.sh 2>&1); then
	ok "checkbashisms: the series' $(find "$SM" -name '*.tc' | wc -l) cases and their library"
else
	echo "$out" | grep -v -e 'does not appear to have a #! interpreter' -e 'may get strange results' |
		sed 's/^/          /'
	bad "checkbashisms finds bashisms in the series' cases ($SM)"
fi

echo "        (took $((SECONDS - t_start)) s)"
echo "upstream: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
