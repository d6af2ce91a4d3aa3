# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The counters, options, configuration check and kernel builds of the comparisons with the
# unpatched kernel, sourced by tests/upstream/run.sh and tests/nostackmap/run.sh (they set ROOT
# and BUILD).
# shellcheck disable=SC2034 # do_build, inject and cases are the callers'

PASSED=0 FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "  ok    $*"; }
bad() { FAILED=$((FAILED + 1)); echo "  FAIL  $*"; }
step() { echo "== $* ($(date +%H:%M:%S))"; }

# build_kernels OUT VARIANT...: `scripts/kernel build VARIANT` for each (an empty VARIANT is
# the series), one check each, the log in OUT/build-VARIANT.log.
build_kernels() {
	local out=$1 v log
	shift
	for v in "$@"; do
		step "build ${v:-the series}"
		log=$out/build${v:-"-series"}.log
		# shellcheck disable=SC2086 # an empty variant is no argument
		if "$ROOT/scripts/kernel" build $v >"$log" 2>&1; then
			ok "kernel builds (${v:-the series})"
		else
			tail -n 20 "$log"
			bad "kernel build ${v} (log $log)"
		fi
	done
}

# compare_args NAME ARGS...: the options both scripts take, into do_build (--no-build: 0) and
# inject (--inject 'VM-OPTIONS', split); other arguments into cases. Exits 2 on an unknown
# option.
compare_args() {
	local name=$1
	shift
	do_build=1 inject=() cases=()
	while [ $# -gt 0 ]; do
		case $1 in
		--no-build) do_build=0; shift ;;
		--inject) read -r -a inject <<<"${2:-}"; shift 2 ;;
		-*) echo "$name: unknown option $1" >&2; exit 2 ;;
		*) cases+=("$1"); shift ;;
		esac
	done
}

# same_config OBJ-A OBJ-B DIFF: both kernels are built and their .config files are the same
# but for the series' own CONFIG_FTRACE_STACKMAP* lines; the difference goes into DIFF.
same_config() {
	[ -f "$BUILD/$1/.config" ] && [ -f "$BUILD/$2/.config" ] &&
		diff <(grep -v FTRACE_STACKMAP "$BUILD/$1/.config") \
			<(grep -v FTRACE_STACKMAP "$BUILD/$2/.config") >"$3"
}
