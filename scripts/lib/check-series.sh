# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/kernel check-series: what a maintainer checks before taking the series, sourced by
# scripts/kernel (uses its TREE, BUILD, CONFIGS, JOBS, BASE_TAG, g, say, die).
#
#   1. bisectability: every commit of build/linux since the base builds (x86_64, the test
#      config), compiled with W=1 and sparse (C=1); a warning that the base build of the same
#      file does not have is new and fails the check (line numbers are ignored, since the
#      series moves lines; every warning in a file the series creates is new);
#   2. checkpatch --strict on every commit: each finding must be listed, with its reason, in
#      kernel/checkpatch-allowed.txt (the cover letter names them);
#   3. other configurations at the top commit: CONFIG_FTRACE_STACKMAP=n (x86_64), i386 (32-bit:
#      the map's path without fingerprints), kunitm (x86_64 with CONFIG_KUNIT=m and modules:
#      the KUnit suite, built in, must not link against kunit.ko) and arm64 (cross-compiled,
#      when aarch64-linux-gnu-gcc is installed), each with W=1 and sparse on kernel/trace/;
#   4. the documentation at the top commit: docutils parses the series' .rst files with no
#      warning and no table row split into fragments (scripts/lib/rst-check.py; `make
#      htmldocs` needs Sphinx and takes long);
#   5. with --boot, every commit from the KUnit patch on is booted in QEMU: the ftrace
#      start-up self-tests and the KUnit suite must pass in its boot log.
#
# It works in its own worktree ($BUILD/check/linux) and object directories ($BUILD/check/obj-*),
# so build/linux and build/obj are left alone. The first run builds the base kernel in full
# with W=1 and sparse (19 minutes here, on 2 cores at load 4-6); later commits are incremental.
#
# Options: --boot (step 5), --no-configs (skip step 3), --only-configs (only step 3),
# --keep-going (go on after a failing commit), --from N (steps 1, 2 and 5 for commits N.. of
# the series only, N = 1 for the first: after a run that checked the ones before).
# CS_CONFIGS="i386 arm64" picks the configurations of step 3 (default: all four). Exit
# status 0 when every check passed.

# shellcheck source=checkpatch.sh
. "$ROOT/scripts/lib/checkpatch.sh"

# KVER=7.3 checks the mainline series (build/linux-7.3) in build/check-7.3, with
# kernel/config/linux-7.3.config merged into every x86 configuration as the 7.3 test kernel
# has it.
CS_DIR=$BUILD/check$KSUFFIX
CS_TREE=$CS_DIR/linux
CS_FAILS=0
CS_NOSPARSE=0

cs_ok() { echo "  ok    $*"; }
cs_bad() { echo "  FAIL  $*"; CS_FAILS=$((CS_FAILS + 1)); }

# A worktree of build/linux, detached at the commit to check.
cs_worktree() { # commit
	if [ ! -e "$CS_TREE/.git" ]; then
		rm -rf "$CS_TREE"
		g worktree prune
		g worktree add -q --detach "$CS_TREE" "$1" || die "cannot create the worktree $CS_TREE"
	fi
	git -C "$CS_TREE" checkout -q --detach "$1" || die "cannot check out $1 in $CS_TREE"
}

# tinyconfig for ARCH + fragments -> OBJ/.config (only rewritten when it changes), and every
# option a fragment asks for must survive olddefconfig, as scripts/kernel build checks.
cs_configure() { # arch obj fragments...
	local arch=$1 obj=$2 tmp frag line sym
	shift 2
	tmp=$CS_DIR/config.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp" "$obj"
	make -s -C "$CS_TREE" O="$tmp" ARCH="$arch" $(cs_cross "$arch") tinyconfig >/dev/null
	"$CS_TREE/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" "$@" >"$tmp/merge.log" 2>&1 ||
		{ cat "$tmp/merge.log" >&2; die "merge_config failed ($arch)"; }
	make -s -C "$CS_TREE" O="$tmp" ARCH="$arch" $(cs_cross "$arch") olddefconfig >/dev/null
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*)
				grep -qxF "$line" "$tmp/.config" ||
					die "config ($arch): '$line' from $(basename "$frag") did not survive olddefconfig" ;;
			"# CONFIG_"*" is not set")
				sym=${line#\# }
				sym=${sym%% *}
				! grep -q "^$sym=" "$tmp/.config" ||
					die "config ($arch): $sym should be off ($(basename "$frag"))" ;;
			esac
		done <"$frag"
	done
	cmp -s "$tmp/.config" "$obj/.config" || cp "$tmp/.config" "$obj/.config"
	rm -rf "$tmp"
}

cs_cross() { # arch
	[ "$1" = arm64 ] && echo "CROSS_COMPILE=aarch64-linux-gnu-"
	return 0
}

# The x86_64 test kernel's fragments (base.config, x86_64.config) without the lines that name
# SYMS (a regex), plus LINES: the fragment for a configuration that differs from the test
# kernel in a few options.
cs_fragment() { # out syms-regex lines...
	local out=$1 re=$2
	shift 2
	local ver=$CONFIGS/linux$KSUFFIX.config vsyms
	cat "$CONFIGS/base.config" "$CONFIGS/x86_64.config" | grep -v -E "^(# )?CONFIG_($re)[= ]" >"$out"
	# The kernel version's own fragment last, in place of the lines it overrides.
	if [ -n "$KSUFFIX" ] && [ -f "$ver" ]; then
		vsyms=$(sed -n -E 's/^(# )?CONFIG_([A-Za-z0-9_]+)[= ].*/\2/p' "$ver" | paste -sd'|')
		[ -z "$vsyms" ] || sed -i -E "/^(# )?CONFIG_($vsyms)[= ]/d" "$out"
		grep -v -E "^(# )?CONFIG_($re)[= ]" "$ver" | grep -E '^(# )?CONFIG_' >>"$out"
	fi
	printf '%s\n' "$@" >>"$out"
}

# Build OBJ with W=1 and sparse; the warnings (gcc's and sparse's), one per line, as
# "file: message" without line and column, into OBJ/warnings. Returns make's status.
cs_make() { # arch obj target [dirs...]
	local arch=$1 obj=$2 target=$3 rc
	shift 3
	make -C "$CS_TREE" O="$obj" ARCH="$arch" $(cs_cross "$arch") W=1 C=1 -j"$JOBS" \
		"$target" "$@" >"$obj/build.log" 2>&1
	rc=$?
	# The kernel turns C=1 off itself when scripts/checker-valid.sh refuses the installed
	# sparse (7.3 wants __typeof_unqual__, which Debian's sparse 0.6.4 cannot parse): said
	# once at the end, never taken for a clean sparse run.
	grep -q 'C=1 specified, but .* is not available or not up to date' "$obj/build.log" &&
		CS_NOSPARSE=1
	grep -E '^[^ :]+:[0-9]+:([0-9]+:)? (warning|error): ' "$obj/build.log" |
		sed -E 's|^(\.\./)*||; s|^'"$CS_TREE"'/||; s|^([^:]+):[0-9]+:([0-9]+:)? |\1: |' |
		LC_ALL=C sort -u >"$obj/warnings"
	return $rc
}

# What the builds so far checked: "W=1, sparse", or "W=1 (no sparse)" once the kernel refused
# the installed sparse.
cs_checks() {
	if [ "$CS_NOSPARSE" = 1 ]; then echo "W=1 (no sparse)"; else echo "W=1, sparse"; fi
}

# Warnings of NEW that BASE does not have, and every warning in a file that BASE's tree lacks.
cs_new_warnings() { # new-warnings base-warnings
	LC_ALL=C comm -23 "$1" "$2"
}

# FAIL with the warnings of NEW that BASE lacks, or ok when there are none.
cs_report_new() { # new-warnings base-warnings fail-message ok-message
	local new
	new=$(cs_new_warnings "$1" "$2")
	if [ -n "$new" ]; then
		cs_bad "$3"
		echo "$new" | sed 's/^/        /'
	else
		cs_ok "$4"
	fi
}

cs_checkpatch() { # commit
	local c=$1 subj line n=0 bad=0
	subj=$(git -C "$CS_TREE" log -1 --format=%s "$c")
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		n=$((n + 1))
		if ! cp_reason "$subj" "$line" >/dev/null; then
			cs_bad "checkpatch: $subj: $line"
			bad=$((bad + 1))
		fi
	done < <(cp_findings "$CS_TREE" "$c")
	[ $bad = 0 ] && cs_ok "checkpatch --strict: $subj ($n finding(s), each listed in kernel/checkpatch-allowed.txt)"
	return 0
}

cs_boot() { # commit obj
	local c=$1 obj=$2 log subj
	subj=$(git -C "$CS_TREE" log -1 --format=%s "$c")
	# The KUnit suite exists from the commit that adds it on; skip the boot before it.
	git -C "$CS_TREE" cat-file -e "$c:kernel/trace/ftrace_stackmap_kunit.c" 2>/dev/null || return 0
	log=$CS_DIR/boot-$(git -C "$CS_TREE" rev-parse --short "$c").log
	# The console shows only part of the log: the command prints the whole of it (dmesg).
	"$ROOT/scripts/vm" run --selftests --kernel "$obj/arch/x86/boot/bzImage" --log "$log" \
		--timeout 900 -- dmesg >"$log.dmesg" 2>&1
	# shellcheck source=../../tests/lib/bootlog.sh
	. "$ROOT/tests/lib/bootlog.sh"
	if bootlog_selftests "$log.dmesg" >/dev/null && bootlog_kunit "$log.dmesg" >/dev/null; then
		cs_ok "boot: $subj: $(bootlog_selftests "$log.dmesg"); $(bootlog_kunit "$log.dmesg")"
	else
		cs_bad "boot: $subj: $(bootlog_selftests "$log.dmesg"); $(bootlog_kunit "$log.dmesg" | head -n 1) (log $log.dmesg)"
	fi
}

cs_bisect() { # boot keep-going from
	local boot=$1 keep=$2 from=$3 obj=$CS_DIR/obj-x86_64 c subj t0 stamp l sym extra
	mapfile -t commits < <(g rev-list --reverse "$BASE_TAG..HEAD")
	[ ${#commits[@]} -gt 0 ] || die "no commits since $BASE_TAG in $TREE"
	[ "$from" -le ${#commits[@]} ] || die "check-series: --from $from: the series has ${#commits[@]} commits"
	# --from N: commits N.. only; the first is built over the base in one step, so its
	# check covers every file the commits before it changed as well.
	commits=("${commits[@]:$((from - 1))}")
	echo "== bisectability, W=1 and sparse: the base, then ${#commits[@]} commits from number $from ($(date +%H:%M:%S))"
	# The base, and the commits before the one that adds CONFIG_FTRACE_STACKMAP, lack the
	# series' options: they are configured without them.
	cs_fragment "$CS_DIR/base-only.config" '(FAIL_)?FTRACE_STACKMAP.*'
	# The base's warnings come from one full build, kept while the base and its .config stay.
	cs_worktree "$BASE_TAG"
	cs_configure x86_64 "$CS_DIR/base-config" "$CS_DIR/base-only.config"
	stamp="$(g rev-parse "$BASE_TAG") $(md5sum <"$CS_DIR/base-config/.config")"
	if [ -s "$CS_DIR/base.warnings" ] && [ "$(cat "$CS_DIR/base.stamp" 2>/dev/null)" = "$stamp" ]; then
		say "base: $(wc -l <"$CS_DIR/base.warnings") distinct warnings from the earlier full build"
	else
		# From an empty object directory: an incremental build over the last run's commit
		# would list only the files it recompiles (a smaller, stricter list than the base's).
		rm -rf "$obj" "$CS_DIR/base.stamp"
		cs_configure x86_64 "$obj" "$CS_DIR/base-only.config"
		t0=$SECONDS
		cs_make x86_64 "$obj" bzImage || die "the base kernel does not build (log $obj/build.log)"
		cp "$obj/warnings" "$CS_DIR/base.warnings"
		echo "$stamp" >"$CS_DIR/base.stamp"
		say "base: full build in $((SECONDS - t0)) s: $(wc -l <"$CS_DIR/base.warnings") distinct warnings ($(cs_checks))"
	fi
	for c in "${commits[@]}"; do
		subj=$(g log -1 --format=%s "$c")
		cs_worktree "$c"
		# The series' options that this commit's Kconfig already has.
		extra=()
		while IFS= read -r l; do
			sym=${l#\# }
			sym=${sym#CONFIG_}
			sym=${sym%%[= ]*}
			grep -q "^config $sym\$" "$CS_TREE/kernel/trace/Kconfig" \
				"$CS_TREE/lib/Kconfig.debug" && extra+=("$l")
		done < <(grep -E '^(# )?CONFIG_(FAIL_)?FTRACE_STACKMAP' "$CONFIGS/base.config")
		cs_fragment "$CS_DIR/commit.config" '(FAIL_)?FTRACE_STACKMAP.*' "${extra[@]}"
		cs_configure x86_64 "$obj" "$CS_DIR/commit.config"
		t0=$SECONDS
		if ! cs_make x86_64 "$obj" bzImage; then
			cs_bad "build: $subj (log $obj/build.log)"
			grep -E 'error' "$obj/build.log" | head -n 10
			[ "$keep" = 1 ] || return 1
			continue
		fi
		cs_report_new "$obj/warnings" "$CS_DIR/base.warnings" "W=1/sparse: $subj: new warnings:" \
			"build, $(cs_checks): $subj ($((SECONDS - t0)) s, no new warning)"
		cs_checkpatch "$c"
		[ "$boot" = 1 ] && cs_boot "$c" "$obj"
	done
	return 0
}

# CONFIG_FTRACE_STACKMAP=n, i386, KUNIT=m and arm64 at the top commit; each must build, and
# kernel/trace must have no warning with W=1 and sparse that the same configuration of the
# base lacks.
cs_configs() {
	local name arch target frag obj
	cs_fragment "$CS_DIR/nostackmap.config" '(FAIL_)?FTRACE_STACKMAP.*' \
		'# CONFIG_FTRACE_STACKMAP is not set'
	# i386: no ORC unwinder, at most 8 CPUs without BIGSMP, and the function graph tracer
	# wants a kernel not optimized for size.
	cs_fragment "$CS_DIR/i386.config" '64BIT|UNWINDER_ORC|NR_CPUS' \
		'# CONFIG_64BIT is not set' 'CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y'
	# KUNIT=m (with modules): the series' suite is built in and must then be left out, not
	# linked into vmlinux against kunit.ko's symbols.
	cs_fragment "$CS_DIR/kunitm.config" 'KUNIT|FTRACE_STACKMAP_KUNIT_TEST|MODULES' \
		'CONFIG_MODULES=y' 'CONFIG_KUNIT=m' 'CONFIG_KUNIT_ALL_TESTS=m'
	for name in ${CS_CONFIGS:-nostackmap i386 kunitm arm64}; do
		case $name in
		nostackmap) arch=x86_64 target=bzImage frag=$CS_DIR/nostackmap.config ;;
		kunitm) arch=x86_64 target=bzImage frag=$CS_DIR/kunitm.config ;;
		i386) arch=i386 target=bzImage frag=$CS_DIR/i386.config ;;
		arm64)
			# The arm64 test kernel: base.config, then arm64.config.
			arch=arm64 target=Image frag=$CS_DIR/arm64.config
			if ! command -v aarch64-linux-gnu-gcc >/dev/null || [ ! -f "$CONFIGS/arm64.config" ]; then
				cs_bad "arm64: needs aarch64-linux-gnu-gcc (scripts/setup --arch arm64) and $CONFIGS/arm64.config"
				continue
			fi
			cat "$CONFIGS/base.config" "$CONFIGS/arm64.config" >"$frag" ;;
		esac
		echo "== $name ($arch, $(basename "$frag")) ($(date +%H:%M:%S))"
		obj=$CS_DIR/obj-$name
		# The same configuration of the base, for its kernel/trace warnings.
		cs_worktree "$BASE_TAG"
		without_stackmap_options "$frag" >"$CS_DIR/$name-base.config"
		cs_configure "$arch" "$obj-base" "$CS_DIR/$name-base.config"
		# Every file of kernel/trace again, so that a second run sees the base's warnings too.
		touch "$CS_TREE"/kernel/trace/*.c
		cs_make "$arch" "$obj-base" kernel/trace/ || { cs_bad "$name: the base's kernel/trace does not build (log $obj-base/build.log)"; continue; }
		cs_worktree "$(g rev-parse HEAD)"
		cs_configure "$arch" "$obj" "$frag"
		if ! cs_make "$arch" "$obj" "$target"; then
			cs_bad "$name: $target does not build (log $obj/build.log)"
			grep -E 'error' "$obj/build.log" | head -n 10
			continue
		fi
		# kernel/trace again with W=1 and sparse on every file, not only the rebuilt ones.
		touch "$CS_TREE"/kernel/trace/*.c
		cs_make "$arch" "$obj" kernel/trace/ || true
		cs_report_new "$obj/warnings" "$obj-base/warnings" "$name: new warnings in kernel/trace:" \
			"$name: $target builds; kernel/trace has no new warning with $(cs_checks)"
	done
}

# Every .rst file the series adds or changes, at the top commit, through docutils with
# warnings as errors and no table row with an empty cell (scripts/lib/rst-check.py).
# index.rst is left out: its toctree is Sphinx's, not docutils'.
cs_docs() {
	local f out py=/usr/bin/python3
	$py -c 'import docutils' 2>/dev/null ||
		{ cs_bad "docs: no docutils for $py (python3-docutils; scripts/setup)"; return; }
	for f in $(g diff --name-only --diff-filter=AM "$BASE_TAG..HEAD" -- '*.rst'); do
		case $f in */index.rst) continue ;; esac
		if out=$(g show "HEAD:$f" | $py "$ROOT/scripts/lib/rst-check.py" "$f" 2>&1); then
			cs_ok "docs: $f renders with docutils (no warning, no split table row)"
		else
			cs_bad "docs: $out"
		fi
	done
}

cmd_check_series() {
	local boot=0 configs=1 bisect=1 keep=0 from=1
	while [ $# -gt 0 ]; do
		case $1 in
		--boot) boot=1 ;;
		--from)
			from=${2:-}
			[[ $from =~ ^[1-9][0-9]*$ ]] || die "check-series: --from wants a commit number (1 = the first of the series)"
			shift ;;
		--no-configs) configs=0 ;;
		--only-configs) bisect=0 ;;
		--keep-going) keep=1 ;;
		*) die "check-series: unknown option '$1'" ;;
		esac
		shift
	done
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'scripts/kernel assemble' first"
	# 7.3 refuses bookworm's sparse: the one `scripts/setup --mainline` builds, when there
	# (in this checkout's build/, or in $BUILD when that is elsewhere, as for a clone run
	# with BUILD pointing at another checkout's build directory).
	local sp
	for sp in "$ROOT/build/sparse" "$BUILD/sparse"; do
		[ "$KVER" != 6.12 ] && [ -x "$sp/bin/sparse" ] || continue
		PATH=$sp/bin:$PATH
		say "sparse: $sp ($(cat "$sp/.version" 2>/dev/null))"
		break
	done
	command -v sparse >/dev/null || die "check-series needs sparse (scripts/setup installs it)"
	[ -z "$(g status --porcelain)" ] || say "note: $TREE has uncommitted changes; only commits are checked"
	mkdir -p "$CS_DIR"
	local t0=$SECONDS
	if [ $bisect = 1 ]; then
		cs_bisect "$boot" "$keep" "$from" || true
	fi
	[ $configs = 1 ] && cs_configs
	cs_docs
	[ "$CS_NOSPARSE" = 0 ] ||
		echo "  skip  sparse: not run on this kernel: its scripts/checker-valid.sh refuses $(command -v sparse) $(sparse --version 2>&1 | head -n 1) (the builds above are W=1 only; for 7.3, scripts/setup --mainline builds one it accepts)"
	echo "check-series: $CS_FAILS failure(s) in $(((SECONDS - t0) / 60)) min"
	[ $CS_FAILS = 0 ]
}
