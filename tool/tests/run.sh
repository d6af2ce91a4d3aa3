#!/bin/sh
# End-to-end tests of the stackmap tool: run.sh BUILD_DIR RESULTS_FILE
# Runs every case against BUILD_DIR/stackmap, compares with tests/golden/NAME.txt (stdout, then
# stderr, then the exit status; temporary paths are shown as $W) and appends "PASSED FAILED"
# to RESULTS_FILE. UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
B=$1
RESULTS=$2
SM=$B/stackmap
MKBIN=${MKBIN:-build/mkbin}
ELF=${ELF_FIXTURE:-build/elf_fixture}
G=tests/golden
K="--kallsyms tests/fixtures/kallsyms"
W=$(mktemp -d /tmp/stackmap-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
tag=$(basename "$B")

ok() { pass=$((pass + 1)); echo "PASS [$tag] $1"; }
ko() { fail=$((fail + 1)); echo "FAIL [$tag] $1"; }

# plugin_frames NAME OUT ERR PREFIX DEFS IDS: trace-cmd report's output OUT with the plugin
# holds DEFS definitions and IDS id events on lines that start with PREFIX, each followed by a
# symbolized frame, and its stderr ERR is empty.
plugin_frames() {
	defs=$(grep -c "^$4.*kernel_stack_def: *<stack_def [0-9]* gen 0>\$" "$2")
	ids=$(grep -c "^$4.*kernel_stack_id: *<stack_id [0-9]*>\$" "$2")
	fr=$(grep -A1 -E 'kernel_stack_(id|def): *<stack_' "$2" |
		grep -cE '^=> [A-Za-z_.0-9]+ \([0-9a-f]+\)$')
	if [ "$defs" = "$5" ] && [ "$ids" = "$6" ] && [ "$fr" = $((defs + ids)) ] && [ ! -s "$3" ]; then
		ok "$1 ($defs definitions, $ids ids)"
	else
		ko "$1 ($defs definitions, $ids ids, $fr with frames)"
		head -3 "$3"
	fi
}

# golden NAME CMD...: run CMD, compare stdout+stderr+exit status with tests/golden/NAME.txt
golden() {
	name=$1
	shift
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
	{
		cat "$W/out"
		echo "--- stderr"
		cat "$W/err"
		echo "--- exit $rc"
	} | sed "s|$W|\$W|g" >"$W/actual"
	if [ -n "$UPDATE_GOLDEN" ]; then
		cp "$W/actual" "$G/$name.txt"
		ok "$name (golden updated)"
	elif cmp -s "$W/actual" "$G/$name.txt"; then
		ok "$name"
	else
		ko "$name"
		diff -u "$G/$name.txt" "$W/actual" | head -20
	fi
}

# expect NAME PATTERN CMD...: CMD exits 0 and its stdout matches the grep -E PATTERN
expect() {
	name=$1
	pat=$2
	shift 2
	if "$@" >"$W/out" 2>"$W/err" && grep -Eq -- "$pat" "$W/out"; then
		ok "$name"
	else
		ko "$name"
		head -5 "$W/out" "$W/err"
	fi
}

# htab unit tests: one "ok NAME" / "not ok NAME: why" line per check, exit 1 on a failure
"$B/htab_test" >"$W/htab.out" 2>&1
rc=$?
while read -r st name rest; do
	case $st in
	ok) ok "htab $name" ;;
	*) ko "htab $name $rest" ;;
	esac
done <"$W/htab.out"
[ $rc = 0 ] && [ -s "$W/htab.out" ] || ko "htab_test exit $rc"

for c in $($MKBIN list); do
	$MKBIN "$c" "$W/$c.bin" || ko "mkbin $c"
done

# --- dump -------------------------------------------------------------------------------
golden dump-text $SM dump $K "$W/basic.bin"
golden dump-swapped $SM dump $K "$W/basic-swapped.bin"
golden dump-nosyms $SM dump --no-kallsyms "$W/basic.bin"
golden dump-global-opt $SM $K dump "$W/basic-swapped.bin"
golden dump-json $SM dump $K --json "$W/basic.bin"
golden dump-json-nosyms $SM dump --no-kallsyms --json "$W/basic.bin"
golden dump-folded $SM dump $K --folded "$W/basic.bin"
golden dump-top2 $SM dump $K --top 2 "$W/basic.bin"
golden dump-top0 $SM dump $K --top 0 "$W/basic.bin"
golden dump-sort-ref $SM dump $K --sort ref "$W/basic.bin"
golden dump-sort-depth $SM dump $K --sort depth "$W/basic.bin"
golden dump-top-sort-id $SM dump $K --top 3 --sort id --folded "$W/basic.bin"
golden dump-empty $SM dump $K "$W/empty.bin"
golden dump-empty-json $SM dump $K --json "$W/empty.bin"
golden dump-empty-folded $SM dump $K --folded "$W/empty.bin"
golden dump-deep $SM dump $K "$W/deep.bin"
golden dump-deep-folded $SM dump $K --folded "$W/deep.bin"
golden dump-trampoline $SM dump $K "$W/trampoline.bin"
golden dump-trampoline-json $SM dump --no-kallsyms --json "$W/trampoline.bin"
# JSON through json-c, always valid UTF-8: a symbol name with a stray byte becomes U+FFFD
printf 'ffffffff81100000 T sched\377ule\nffffffff811000c0 T caf\303\251\nffffffff81100100 T next\n' >"$W/kallsyms-utf8"
$SM dump --kallsyms "$W/kallsyms-utf8" --json "$W/basic.bin" >"$W/utf8.json"
if iconv -f UTF-8 -t UTF-8 "$W/utf8.json" >/dev/null 2>&1 && grep -q "$(printf 'sched\357\277\275ule+0x48')" "$W/utf8.json" &&
	grep -q "$(printf 'caf\303\251+')" "$W/utf8.json"; then
	ok dump-json-utf8
else
	ko dump-json-utf8
	head -c 300 "$W/utf8.json"
fi
golden dump-stdin sh -c "$SM dump $K - < $W/basic-swapped.bin"
for c in trunc-header bad-magic bad-version hdr-reserved rec-reserved nr-too-big \
	fewer-records trailing trunc-record trunc-rec-header ids-not-increasing dup-id huge-count; do
	golden "dump-err-$c" $SM dump $K "$W/$c.bin"
done
golden dump-err-missing-file $SM dump $K "$W/does-not-exist.bin"
golden dump-err-bad-option $SM dump --bogus "$W/basic.bin"
golden dump-err-bad-sort $SM dump --sort size "$W/basic.bin"
golden dump-err-bad-top $SM dump --top x "$W/basic.bin"
golden dump-err-two-files $SM dump "$W/basic.bin" "$W/basic.bin"
golden dump-err-kallsyms-missing $SM dump --kallsyms "$W/nope" "$W/basic.bin"
golden dump-err-kallsyms-zero $SM dump --kallsyms tests/fixtures/kallsyms-zero "$W/basic.bin"
golden dump-err-lines-no-vmlinux $SM dump --no-kallsyms --lines "$W/basic.bin"
golden dump-err-vmlinux-not-elf $SM dump --no-kallsyms --vmlinux tests/fixtures/kallsyms \
	"$W/basic.bin"

# --- ELF symbols and DWARF lines (addresses come from the fixture built on this machine) ---
leaf=$(nm "$ELF" | awk '/ fixture_leaf$/ {print $1}')
mid=$(nm "$ELF" | awk '/ fixture_middle$/ {print $1}')
text=$(nm "$ELF" | awk '/ _text$/ {print $1}')
$MKBIN addrs "$W/elf.bin" "$(printf %x $((0x$leaf + 4)))" "$(printf %x $((0x$mid + 8)))" \
	ffffffffc0002085
expect elf-symbols '^  \[0\] fixture_leaf\+0x4/0x[0-9a-f]+$' \
	$SM dump --no-kallsyms --vmlinux "$ELF" "$W/elf.bin"
expect elf-lines '^  \[1\] fixture_middle\+0x8/0x[0-9a-f]+ .*elf_fixture\.c:[0-9]+$' \
	$SM dump --no-kallsyms --vmlinux "$ELF" --lines "$W/elf.bin"
expect elf-lines-json '"lines": \[ ".*elf_fixture\.c:[0-9]+", ".*elf_fixture\.c:[0-9]+", null \]' \
	$SM dump --no-kallsyms --vmlinux "$ELF" --lines --json "$W/elf.bin"
# KASLR: runtime addresses are 0x1000000 above the ELF ones; kallsyms gives _text and modules.
shift=16777216
printf '%016x T _text\n%016x T fixture_leaf\nffffffffc0002000 T nf_hook_slow\t[nf_tables]\nffffffffc0002080 t nft_do_chain\t[nf_tables]\nffffffffc0003000 t zz_last\t[zz]\n' \
	$((0x$text + shift)) $((0x$text + shift + 0x400)) >"$W/kallsyms-kaslr"
$MKBIN addrs "$W/kaslr.bin" "$(printf %x $((0x$leaf + shift + 4)))" ffffffffc0002085
expect elf-kaslr-core '^  \[0\] fixture_leaf\+0x4/0x[0-9a-f]+$' \
	$SM dump --kallsyms "$W/kallsyms-kaslr" --vmlinux "$ELF" "$W/kaslr.bin"
expect elf-kaslr-module '^  \[1\] nft_do_chain\+0x5/0xf80 \[nf_tables\]$' \
	$SM dump --kallsyms "$W/kallsyms-kaslr" --vmlinux "$ELF" "$W/kaslr.bin"

# --- report -----------------------------------------------------------------------------
# trace-report.txt is trace.txt without its malformed <stack_id> line (trace.txt is the
# corrupt input of the error tests)
T=tests/fixtures/trace-report.txt
golden report-text $SM report $K --trace $T --map "$W/basic.bin"
golden report-folded $SM report $K --trace $T --map "$W/basic.bin" --folded
golden report-top1 $SM report $K --trace $T --map "$W/basic.bin" --top 1
golden report-folded-top1 $SM report $K --trace $T --map "$W/basic.bin" --folded --top 1
golden report-trace-cmd $SM report $K --trace tests/fixtures/trace-cmd.txt --map "$W/basic.bin"
golden report-trace-cmd-folded $SM report $K --trace tests/fixtures/trace-cmd.txt \
	--map "$W/basic.bin" --folded
golden report-empty-map $SM report --no-kallsyms --trace tests/fixtures/trace-cmd.txt \
	--map "$W/empty.bin"
golden report-no-map $SM report $K --trace $T
golden report-err-corrupt $SM report $K --trace tests/fixtures/trace.txt --map "$W/basic.bin"
golden report-err-bad-map $SM report $K --trace $T --map "$W/bad-magic.bin"
golden report-err-no-trace $SM report $K --trace "$W/none" --map "$W/basic.bin"
golden report-err-bad-top $SM report $K --trace $T --map "$W/basic.bin" --top -1

# --- event model (events.h): records of trace text and trace-cmd text ----------------------
golden events-trace "$B/evdump" tests/fixtures/trace.txt
golden events-trace-cmd "$B/evdump" tests/fixtures/trace-cmd.txt
# tgid column, extra references, user stacks skipped, no cross-CPU attribution
golden events-model "$B/evdump" tests/fixtures/trace-events.txt
# a CPU's event held back by more than TP_WINDOW (4096) waiting records is delivered without
# its stack; the late reference becomes an EV_F_EXTRA record of the same event
{
	echo "a-1 [000] d..2. 1.000000: kmem_cache_alloc: x"
	i=0
	while [ $i -lt 5000 ]; do
		echo "b-2 [001] d..2. 1.000001: kmem_cache_alloc: y"
		echo "b-2 [001] d..2. 1.000001: <stack_id 3>"
		i=$((i + 1))
	done
	echo "a-1 [000] d..2. 1.000002: <stack_id 9>"
} >"$W/window.txt"
"$B/evdump" "$W/window.txt" | grep -v "comm='b'" >"$W/window.out"
expect events-window "^#0 .*comm='a' .*type=kmem_cache_alloc extra stack_id=9$" cat "$W/window.out"
printf 'sh-1 [000] d..2. 1.000001: sched_switch: prev_comm=sh prev_pid=1' >"$W/trunc.txt"
golden events-truncated "$B/evdump" "$W/trunc.txt"

# --- export -----------------------------------------------------------------------------
X=tests/fixtures/trace-export.txt
XM="--map $W/basic.bin"
for by in event comm pid none; do
	golden "export-folded-$by" $SM export $K --format folded --by $by $XM $X
done
# export folded carries the same stacks and counts as report --folded (ids the map lacks are
# "[missing stack_id N]" there); lines summed per path, since export merges stacks by frames
agg() { awk '{
	n = $NF; $NF = ""; s[$0] += n } END { for (k in s) print k s[k] }' | sort; }
$SM report $K --folded --trace $X $XM 2>/dev/null | agg >"$W/rep.agg"
$SM export $K --format folded $XM $X 2>/dev/null | agg >"$W/exp.agg"
expect export-folded-equals-report '.' sh -c "cmp '$W/rep.agg' '$W/exp.agg' && cat '$W/exp.agg'"
# off-CPU weights: the fixture's comment lists the switch times (300000 and 1000000 ns)
golden export-folded-offcpu $SM export $K --format folded --weight offcpu --by pid $XM $X
golden export-speedscope $SM export $K --format speedscope $XM $X
# --by splits the profiles: one per comm, per comm-pid, or a single "all"
golden export-speedscope-by-comm $SM export $K --format speedscope --by comm $XM $X
golden export-speedscope-by-pid $SM export $K --format speedscope --by pid $XM $X
golden export-speedscope-by-none $SM export $K --format speedscope --by none $XM $X
$SM export $K --format speedscope --by pid -o "$W/s-pid.json" $XM $X 2>/dev/null
expect export-speedscope-by-pid-fields 'speedscope ok' python3 tests/check_speedscope.py "$W/s-pid.json" 8
$SM export $K --format speedscope -o "$W/s.json" $XM $X 2>/dev/null
expect export-speedscope-fields 'speedscope ok' python3 tests/check_speedscope.py "$W/s.json" 8
$SM export $K --format speedscope --weight offcpu -o "$W/s-off.json" $XM $X 2>/dev/null
expect export-speedscope-offcpu 'speedscope ok' python3 tests/check_speedscope.py "$W/s-off.json" 1300000
# task names that are not UTF-8 ('?' instead of the bad byte): the SVG stays well-formed XML
printf 'x\377\303\251y-5 [000] d..2. 1.000000: kmem_cache_alloc: a\nx\377\303\251y-5 [000] d..2. 1.000001: <stack_id 3>\n' \
	>"$W/utf8.txt"
$SM export --format svg --by comm -o "$W/utf8.svg" "$W/utf8.txt" 2>/dev/null
expect export-svg-utf8 'xml ok' python3 -c 'import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
print("xml ok" if any(g.getAttribute("data-n") == "x?\u00e9y" for g in d.getElementsByTagName("g")) else "no")' "$W/utf8.svg"
# the trace-cmd text gives the same records
golden export-folded-trace-cmd $SM export $K --format folded $XM tests/fixtures/trace-cmd.txt
# bad input: offset and reason, exit 1, no output file (nor its temporary)
head -c 700 $X >"$W/trunc-trace"
for f in folded speedscope pprof perfetto svg; do
	golden "export-err-corrupt-$f" $SM export $K --format $f -o "$W/out.$f" $XM \
		tests/fixtures/trace.txt
	golden "export-err-bad-map-$f" $SM export $K --format $f -o "$W/out.$f" \
		--map "$W/trunc-record.bin" $X
done
{ head -3 $X; printf 'bin\000ary\n'; tail -n +4 $X; } >"$W/nul-trace"
golden export-err-nul $SM export $K --format pprof -o "$W/out.pprof" $XM "$W/nul-trace"
if ls "$W" | grep -q '^out\.'; then ko export-no-partial-output; else ok export-no-partial-output; fi
# a torn last line (a copy of a live file) is a warning, in every format and in report
for f in folded speedscope pprof perfetto svg; do
	golden "export-torn-$f" $SM export $K --format $f -o "$W/torn.$f" $XM "$W/trunc-trace"
done
golden report-torn $SM report $K --top 1 $XM "$W/trunc-trace"
# -o naming a FIFO (like /dev/null, not a regular file) is written into, never renamed over
mkfifo "$W/fifo"
cat "$W/fifo" >"$W/fifo.out" &
catpid=$!
$SM export $K --format folded -o "$W/fifo" $XM $X 2>/dev/null
if [ -p "$W/fifo" ]; then
	wait $catpid
	$SM export $K --format folded $XM $X 2>/dev/null >"$W/fifo.want"
	expect export-output-fifo '.' sh -c "cmp '$W/fifo.want' '$W/fifo.out' && cat '$W/fifo.out'"
else
	kill $catpid
	ko "export-output-fifo (the FIFO was replaced by a regular file)"
fi
golden export-err-format $SM export --format png $XM $X
golden export-err-no-format $SM export $XM $X
golden export-err-by $SM export --format folded --by cpu $XM $X
golden export-err-no-input $SM export --format folded $XM "$W/none"
# a record directory with only a trace.dat is read through report_dat.c; an empty one is an error
mkdir -p "$W/datonly" && : >"$W/datonly/trace.dat" && cp "$W/basic.bin" "$W/datonly/stack_map_bin"
golden export-err-tracedat-only $SM export --format folded "$W/datonly"
# fuzz corpus replayed through every exporter: exit 0 or 1, never a crash
bad=""
for c in fuzz/corpus/trace/*; do
	for f in folded speedscope pprof perfetto svg; do
		$SM export --no-kallsyms --format $f -o "$W/fz.out" $XM "$c" >/dev/null 2>&1
		rc=$?
		[ $rc -le 1 ] || bad="$bad $(basename "$c"):$f:$rc"
	done
done
if [ -z "$bad" ]; then ok export-corpus-replay; else ko "export-corpus-replay:$bad"; fi

# --- diff: two recordings compared by frames ------------------------------------------------
mkdir -p "$W/ra" "$W/rb"
cp $X "$W/ra/trace"
grep -v 'stack_id 40' $X | sed 's/<stack_id 9>/<stack_id 7>/' >"$W/rb/trace"
cp "$W/basic.bin" "$W/ra/stack_map_bin"
cp "$W/basic.bin" "$W/rb/stack_map_bin"
golden diff-folded $SM diff $K "$W/ra" "$W/rb"
golden diff-folded-normalize $SM diff $K --normalize --by none "$W/ra" "$W/rb"
# differential SVG: widths from max(A, B), so the stacks only in A (ext4_file_read_iter and the
# trampoline one) keep their width, in full blue; the unknown stack_id 77 of A and that of B are
# two stacks (ids of two recordings are unrelated), so the total width is 10 references
golden diff-svg $SM diff $K --format svg "$W/ra" "$W/rb"
expect diff-svg-baseline-only 'ext4_file_read_iter \[ext4\] \(A 1, B 0\)</title><rect x="480.000" y="88" width="120.000" height="15" fill="rgb\(55,55,255\)"' \
	$SM diff $K --format svg "$W/ra" "$W/rb"
golden diff-err-one-input $SM diff $K "$W/ra"
golden diff-err-format $SM diff $K --format pprof "$W/ra" "$W/rb"

# --- export: SVG rendered by headless Chromium (installed by scripts/setup: fail if not) -----
golden export-svg $SM export $K --format svg $XM $X
golden export-svg-module $SM export $K --format svg --color module --by pid $XM $X
if command -v chromium >/dev/null 2>&1; then
	CH="chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir=$W/chromium"
	# svg_render NAME FILE FRAMES: the script ran (status line), no console error, the
	# screenshot at the SVG's own size is not empty
	svg_render() {
		h=$(sed -n 's/^<svg .* height="\([0-9.]*\)".*/\1/p' "$2" | head -1)
		$CH --enable-logging=stderr --v=0 --dump-dom "file://$2" >"$W/dom" 2>"$W/chr.err"
		if grep -q "ready: $3 frames" "$W/dom" && ! grep -q 'CONSOLE' "$W/chr.err"; then
			ok "$1-script"
		else
			ko "$1-script"
			grep CONSOLE "$W/chr.err" | head -3
		fi
		$CH --window-size=1200,"${h%.*}" --screenshot="$W/shot.png" "file://$2" \
			>/dev/null 2>&1
		expect "$1-screenshot" 'non-background' python3 tests/check_png.py "$W/shot.png" 20 20
	}
	$SM export $K --format svg -o "$W/f.svg" $XM $X 2>/dev/null
	svg_render svg-chromium "$W/f.svg" 21
	# zoom on sched_switch hides the 7 frames outside it; search shows the matched share
	$CH --dump-dom "file://$W/f.svg#zoom=sched_switch" 2>/dev/null | grep -c 'display: none' \
		>"$W/hidden"
	expect svg-chromium-zoom '^7$' cat "$W/hidden"
	expect svg-chromium-search 'Matched: 50.00%' $CH --dump-dom "file://$W/f.svg#search=^schedule$"
	$SM diff $K --format svg -o "$W/d.svg" "$W/ra" "$W/rb" 2>/dev/null
	svg_render svg-chromium-diff "$W/d.svg" 27
else
	ko "svg: chromium not installed (apt-get install chromium; scripts/setup installs it)"
fi

# --- export: Perfetto trace decoded by protoc against our schema subset (fail if missing) ---
if command -v protoc >/dev/null 2>&1; then
	$SM export $K --format perfetto -o "$W/t.perfetto" $XM $X 2>/dev/null
	protoc --decode=perfetto.protos.Trace tests/perfetto_subset.proto <"$W/t.perfetto" \
		>"$W/t.decoded" 2>"$W/err"
	"$B/evdump" $X >"$W/t.events"
	$SM export $K --format folded -o "$W/t.folded" $XM $X 2>/dev/null
	golden perfetto-decoded python3 tests/check_perfetto.py "$W/t.decoded"
	expect perfetto-event-by-event 'perfetto matches the trace' \
		python3 tests/check_perfetto.py "$W/t.decoded" "$W/t.events" "$W/t.folded" \
		"$W/t.perfetto"
	# to standard output the input is read whole first, then streamed in a second pass
	$SM export $K --format perfetto $XM $X 2>/dev/null >"$W/t-out.perfetto"
	protoc --decode=perfetto.protos.Trace tests/perfetto_subset.proto <"$W/t-out.perfetto" \
		>"$W/t-out.decoded" 2>"$W/err"
	expect perfetto-stdout-event-by-event 'perfetto matches the trace' \
		python3 tests/check_perfetto.py "$W/t-out.decoded" "$W/t.events" "$W/t.folded" \
		"$W/t-out.perfetto"
	# a record earlier than the one before it: its delta on the incremental clock wraps around
	sed 's/ 1\.000100: kmem/ 0.999900: kmem/; s/ 1\.000101: <stack/ 0.999901: <stack/' $X \
		>"$W/back.txt"
	"$B/evdump" "$W/back.txt" >"$W/back.events"
	$SM export $K --format folded -o "$W/back.folded" $XM "$W/back.txt" 2>/dev/null
	$SM export $K --format perfetto -o "$W/back.perfetto" $XM "$W/back.txt" 2>/dev/null
	protoc --decode=perfetto.protos.Trace tests/perfetto_subset.proto <"$W/back.perfetto" \
		>"$W/back.decoded" 2>"$W/err"
	expect perfetto-backwards-time 'perfetto matches the trace' \
		python3 tests/check_perfetto.py "$W/back.decoded" "$W/back.events" "$W/back.folded" \
		"$W/back.perfetto"
	expect perfetto-backwards-time-step '^999900000 cpu=0 pid=200 ' \
		python3 tests/check_perfetto.py "$W/back.decoded"
	$SM export $K --format perfetto --by pid -o "$W/t2.perfetto" $XM tests/fixtures/trace-events.txt \
		2>/dev/null
	protoc --decode=perfetto.protos.Trace tests/perfetto_subset.proto <"$W/t2.perfetto" \
		>"$W/t2.decoded" 2>"$W/err"
	golden perfetto-decoded-tgid python3 tests/check_perfetto.py "$W/t2.decoded"
	# sched_switch chains: compact_sched where trace_processor derives the prev_* fields from
	# the CPU's previous switch, a full event where it would not
	psw() { # comm pid cpu time prio state next_comm next_pid next_prio
		printf '%s-%s [%s] d..2. %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=%s ' \
			"$1" "$2" "$3" "$4" "$1" "$2" "$5"
		printf 'prev_state=%s ==> next_comm=%s next_pid=%s next_prio=%s\n' "$6" "$7" "$8" "$9"
	}
	{
		echo "# tracer: nop"
		psw a 1 000 1.000001 120 S b 2 120 # the first of its CPU: in full
		psw b 2 000 1.000002 120 R+ c 3 100 # compact from here on, but ...
		psw c 3 000 1.000003 110 D a 1 120 # ... when the priority changed while running
		psw a 1 000 1.000004 120 S b 2 120
		psw bb 2 000 1.000005 120 S c 3 100 # ... the task renamed itself
		psw c 3 000 1.000006 100 S d 4 120
		psw d 9 000 1.000007 120 S a 1 120 # ... another pid of the same name (lost events)
		psw a 1 000 1.000007 120 S c 3 100 # the same time: in input order
		psw swapper/1 0 001 1.000003 120 R a 1 120
		psw a 1 001 1.000005 120 S swapper/1 0 120
		psw swapper/1 0 001 1.000004 120 R a 1 120 # ... a switch earlier than the one before
		# more than a bundle (4096 events): the next one starts from its predecessor's fields
		awk 'BEGIN { for (i = 0; i < 5000; i++) { p = i % 3; n = (i + 1) % 3
			printf "t%d-%d [002] d..2. 2.%06d: sched_switch: prev_comm=t%d prev_pid=%d " \
				"prev_prio=120 prev_state=S ==> next_comm=t%d next_pid=%d next_prio=120\n",
				p, 10 + p, i, p, 10 + p, n, 10 + n } }'
	} >"$W/sw.txt"
	"$B/evdump" "$W/sw.txt" >"$W/sw.events"
	$SM export --format folded -o "$W/sw.folded" "$W/sw.txt" 2>/dev/null
	$SM export --format perfetto -o "$W/sw.perfetto" "$W/sw.txt" 2>/dev/null
	protoc --decode=perfetto.protos.Trace tests/perfetto_subset.proto <"$W/sw.perfetto" \
		>"$W/sw.decoded" 2>"$W/err"
	expect perfetto-compact-sched 'perfetto matches the trace: .* 5011 switches' \
		python3 tests/check_perfetto.py "$W/sw.decoded" "$W/sw.events" "$W/sw.folded" \
		"$W/sw.perfetto"
	expect perfetto-compact-sched-used '^7$' grep -c compact_sched "$W/sw.decoded"
else
	ko "perfetto: protoc not installed (apt-get install protobuf-compiler; scripts/setup installs it)"
fi

# --- export: pprof through Debian's go tool pprof (installed by scripts/setup: fail if not) --
if command -v go >/dev/null 2>&1; then
	GP="env HOME=$W GOCACHE=$W/gocache go tool pprof"
	$SM export $K --format pprof -o "$W/a.pb.gz" $XM $X 2>/dev/null
	$SM export $K --format folded -o "$W/a.folded" $XM $X 2>/dev/null
	refs=$($SM report $K --trace $X $XM 2>/dev/null | sed -n 's/.* \([0-9]*\) stack references.*/\1/p')
	$GP -raw "$W/a.pb.gz" >"$W/a.raw" 2>"$W/err"
	expect pprof-raw-matches-folded 'pprof matches folded' \
		python3 tests/check_pprof.py "$W/a.raw" "$W/a.folded" "$refs"
	golden pprof-top $GP -top "$W/a.pb.gz"
	golden pprof-traces $GP -traces "$W/a.pb.gz"
	# -diff_base between two exports: the second recording drops one sched_switch stack
	grep -v 'stack_id 40' $X >"$W/b-trace"
	$SM export $K --format pprof -o "$W/b.pb.gz" $XM "$W/b-trace" 2>/dev/null
	expect pprof-diff-base 'Total samples = 8 ' $GP -top -diff_base "$W/a.pb.gz" "$W/b.pb.gz"
	expect pprof-diff-base-delta '^ *-1 .*schedule$' $GP -top -diff_base "$W/a.pb.gz" "$W/b.pb.gz"
	$SM export $K --format pprof --weight offcpu -o "$W/off.pb.gz" $XM $X 2>/dev/null
	expect pprof-offcpu 'Total samples = 1300us' $GP -top "$W/off.pb.gz"
else
	ko "pprof: go not installed (apt-get install golang-go; scripts/setup installs it)"
fi

# --- stat -------------------------------------------------------------------------------
golden stat $SM stat tests/fixtures/stat.txt
golden stat-map $SM stat tests/fixtures/stat.txt --map "$W/basic.bin"
golden stat-map-empty $SM stat tests/fixtures/stat.txt --map "$W/empty.bin"
echo "stackmap not initialized" >"$W/stat-noinit"
golden stat-err-noinit $SM stat "$W/stat-noinit"
printf 'stackmap not initialized\nlast_error:   -12 (allocating the map for 2^14 stacks failed)\n' >"$W/stat-allocfail"
golden stat-err-allocfail $SM stat "$W/stat-allocfail"
printf 'entries: 12\nsuccesses: 3\n' >"$W/stat-bad"
golden stat-err-entries $SM stat "$W/stat-bad"
printf 'entries: 1 / 2\ndrops: 0\n' >"$W/stat-nosucc"
golden stat-err-missing $SM stat "$W/stat-nosucc"
printf 'entries: 1 / 2\nthis is not a stat line\n' >"$W/stat-garbage"
golden stat-err-garbage $SM stat "$W/stat-garbage"
golden stat-err-missing-file $SM stat "$W/none"
golden stat-err-bad-map $SM stat tests/fixtures/stat.txt --map "$W/trailing.bin"

# --- record against a fake tracefs tree ---------------------------------------------------
F=$W/tracefs
sh tests/fake_tracefs.sh "$F" "$W/basic.bin" nosupport
golden record-nosupport $SM --tracefs "$F" record -o "$W/rec" -- true
golden record-nosupport-env env STACKMAP_TRACEFS="$F" $SM record -o "$W/rec" -- true
sh tests/fake_tracefs.sh "$F" "$W/basic.bin"
golden record-flow $SM --tracefs "$F" record -F text -o "$W/rec" -b 2048 -e sched:sched_switch \
	-e kmem:kmem_cache_alloc -e sched --kallsyms tests/fixtures/kallsyms -- \
	sh -c "sh tests/run_state.sh $F; exit 3"
golden record-flow-after sh -c "sh tests/run_state.sh $F; cmp $W/rec/stack_map_bin $W/basic.bin && ls $W/rec"
cp $T "$F/trace"
golden record-then-report sh -c "$SM --tracefs $F record -F text -o $W/rec2 --kallsyms tests/fixtures/kallsyms -- true >/dev/null && $SM report -i $W/rec2 --top 2"
golden record-err-event $SM --tracefs "$F" record -o "$W/rec" -e nosuch:event -- true
golden record-err-exec $SM --tracefs "$F" record -F text -o "$W/rec" -- "$W/no-such-program"
golden record-err-state sh -c "sh tests/run_state.sh $F"
golden record-err-nocmd $SM --tracefs "$F" record -o "$W/rec"
golden record-err-bad-b $SM --tracefs "$F" record -b 0 -- true
golden record-sigterm $SM --tracefs "$F" record -F text -o "$W/rec" --kallsyms tests/fixtures/kallsyms \
	-- sh -c 'kill -TERM $PPID; exec sleep 5'
golden record-sigterm-state sh -c "sh tests/run_state.sh $F"

# --- trace.dat input, the plugin, record --format dat ------------------------------------
D=tests/fixtures/dat
golden dat-report $SM report --top 2 $D/trace.dat
golden dat-report-folded $SM report --folded --top 1 $D/trace.dat
golden dat-dump $SM dump --top 2 $D/trace.dat
# CPU 1 starts with a stack id whose event was overwritten (pages cut from a wrapped buffer):
# it goes to "(no event)", never to CPU 0's event; the lost-events flag of that page is counted
golden dat-orphan-report $SM report --top 1 tests/fixtures/dat-orphan/trace.dat
for v in trace-v7.dat trace-v7-none.dat; do
	# trace-cmd convert made these from trace.dat: version 7, zstd and uncompressed
	if $SM report --top 2 $D/$v >"$W/v7" 2>&1 && $SM report --top 2 $D/trace.dat | cmp -s - "$W/v7"; then
		ok "dat-report-$v"
	else
		ko "dat-report-$v"
		head -5 "$W/v7"
	fi
done
cp $D/trace.dat "$W/lonely.dat"
golden dat-no-map $SM report "$W/lonely.dat"
golden dat-dump-map-option $SM dump --top 1 --map $D/stack_map_bin "$W/lonely.dat"
head -c 2000 $D/trace.dat >"$W/trunc.dat"
golden dat-err-truncated $SM report --map $D/stack_map_bin "$W/trunc.dat"
{ head -c 10 $D/trace.dat; printf '9'; tail -c +12 $D/trace.dat; } >"$W/v9.dat"
golden dat-err-version $SM report --map $D/stack_map_bin "$W/v9.dat"
# page commit of CPU 0's first page (offset from the flyrecord table) set past the page
off=$(od -An -tu8 -j "$(($(grep -abo flyrecord $D/trace.dat | cut -d: -f1) + 10))" -N8 $D/trace.dat | tr -d ' ')
{ head -c $((off + 8)) $D/trace.dat; printf '\377\377\000\000\000\000\000\000'; tail -c +$((off + 17)) $D/trace.dat; } >"$W/page.dat"
golden dat-err-page $SM report --map $D/stack_map_bin "$W/page.dat"
golden dat-err-missing $SM report "$W/none.dat"
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	export TRACEEVENT_PLUGIN_DIR=$B
	# every kernel_stack_id event is followed by its frames, as kernel_stack events are
	trace-cmd report -i $D/trace.dat >"$W/tc" 2>"$W/tcerr"
	ids=$(grep -c 'kernel_stack_id: *<stack_id' "$W/tc")
	framed=$(grep -A1 'kernel_stack_id: *<stack_id' "$W/tc" | grep -cE '^=> [A-Za-z_.0-9]+ \([0-9a-f]+\)$')
	if [ "$ids" -gt 0 ] && [ "$ids" = "$framed" ] && [ ! -s "$W/tcerr" ]; then
		ok "plugin-frames ($ids id events)"
	else
		ko "plugin-frames ($ids id events, $framed with frames)"
		head -3 "$W/tcerr"
	fi
	# the first id event's frames are the ones dump gives for that id (function names)
	id=$(grep -m1 -o 'kernel_stack_id: *<stack_id [0-9]*' "$W/tc" | grep -o '[0-9]*$')
	awk -v id="$id" '$0 ~ "<stack_id " id ">$" {on = 1; next} on && /^=> / {print $2; next} on {exit}' \
		"$W/tc" >"$W/plugin-frames"
	$SM dump $D/trace.dat | awk -v id="$id" '$1 == "stack_id" {on = $2 == id; next}
		on && /^  \[/ {sub(/\+.*/, "", $2); print $2}' >"$W/dump-frames"
	if [ -s "$W/plugin-frames" ] && cmp -s "$W/plugin-frames" "$W/dump-frames"; then
		ok "plugin-frames-match-dump (stack_id $id)"
	else
		ko "plugin-frames-match-dump (stack_id $id)"
		diff "$W/dump-frames" "$W/plugin-frames" | head -5
	fi
	trace-cmd report -O stackmap:file=$D/stack_map_bin -i "$W/lonely.dat" >"$W/tc2" 2>&1
	if grep -qE '^=> [A-Za-z_.0-9]+ \([0-9a-f]+\)$' "$W/tc2"; then ok plugin-option-file; else ko plugin-option-file; fi
	trace-cmd report -i "$W/lonely.dat" >"$W/tc3" 2>"$W/tc3err"
	if [ "$(grep -c 'plugin_stackmap: no stack map' "$W/tc3err")" = 1 ] &&
		grep -q 'kernel_stack_id: *<stack_id [0-9]*>$' "$W/tc3" && ! grep -q '^=> ' "$W/tc3"; then
		ok plugin-no-map-says-so-once
	else
		ko plugin-no-map-says-so-once
		head -3 "$W/tc3err"
	fi
	unset TRACEEVENT_PLUGIN_DIR
fi
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
golden record-dat $SM --tracefs "$F" record -e sched -o "$W/recdat" --kallsyms tests/fixtures/kallsyms -- true
# (the map's fill comes from the stack_map_stat beside a recording: not compared)
nofill() { sed 's/; map: .*//'; }
$SM report --top 0 --kallsyms tests/fixtures/kallsyms $D/trace.dat | nofill >"$W/fixture-report"
if $SM report --top 0 "$W/recdat/trace.dat" | nofill | cmp -s - "$W/fixture-report"; then
	ok record-dat-report-matches
else
	ko record-dat-report-matches
fi
# the map is inside the trace.dat as well: the file alone is enough
cp "$W/recdat/trace.dat" "$W/alone.dat"
if $SM report --top 0 "$W/alone.dat" | nofill | cmp -s - "$W/fixture-report" &&
	$SM dump --top 1 "$W/alone.dat" | grep -q '^stack_id'; then
	ok record-dat-map-inside
else
	ko record-dat-map-inside
fi
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	# trace-cmd skips the option it does not know and reads the rest
	if trace-cmd report -i "$W/alone.dat" 2>&1 | grep -c 'kernel_stack_id: *<stack_id' | grep -qx 217; then
		ok record-dat-trace-cmd-reads
	else
		ko record-dat-trace-cmd-reads
	fi
fi
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
$SM --tracefs "$F" record -m stream -e sched -o "$W/recstream" --kallsyms tests/fixtures/kallsyms -- true >/dev/null 2>&1
if $SM report --top 0 "$W/recstream/trace.dat" | nofill | cmp -s - "$W/fixture-report"; then
	ok record-stream-report-matches
else
	ko record-stream-report-matches
fi
# export reads a record directory with only trace.dat (stream mode writes no text): every
# stack reference is in the flame graph
total=$($SM export --format folded "$W/recstream" 2>/dev/null | awk '{n += $NF} END {print n + 0}')
if [ "$total" = 217 ]; then ok "export-from-trace.dat ($total references)"; else ko "export-from-trace.dat ($total references, want 217)"; fi
golden record-err-stream-text $SM --tracefs "$F" record -m stream -F both -o "$W/rec" -- true
golden record-err-mode $SM --tracefs "$F" record -m sometimes -o "$W/rec" -- true
golden record-help $SM record -h
golden report-help $SM report --help
golden export-help $SM export -h
golden diff-help $SM diff --help

# --- global -----------------------------------------------------------------------------
golden global-version $SM --version
golden global-no-command $SM
golden global-unknown-command $SM frobnicate
golden global-bad-option $SM --frob dump
expect global-help '^Usage: stackmap' $SM --help
expect global-help-cmd '^Usage: stackmap' $SM dump --help
# every long option in --help is documented in the man page
missing=""
for o in $( (for c in "" dump report record stat export diff; do $SM $c --help; done) | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" stackmap.1 || missing="$missing $o"
done
if [ -z "$missing" ]; then ok man-page-options; else ko "man-page-options:$missing"; fi

# --- one input, one answer: every reading command opens a recording the same way ----------
# (src/input.c; the numbers are the cases of the issue that asked for the input layer)
# 1. frame names come from the trace.dat's own kallsyms in every command, never from this
#    machine's /proc/kallsyms: every name that report, export and diff print is one that dump
#    prints for the same file, and the sched_switch tracepoint frame is among them
names() { tr ';' '\n' | sed 's/ [0-9][0-9 ]*$//' | grep -v '^(' | sort -u; }
$SM dump --folded $D/trace.dat | names >"$W/n-dump"
$SM report --folded $D/trace.dat 2>/dev/null | cut -d';' -f2- | names >"$W/n-report"
$SM export --format folded $D 2>/dev/null | cut -d';' -f2- | names >"$W/n-export"
$SM diff $D/trace.dat $D/trace.dat 2>/dev/null | sed 's/ [0-9]* [0-9]*$//' | cut -d';' -f2- |
	names >"$W/n-diff"
for c in report export diff; do
	extra=$(comm -13 "$W/n-dump" "$W/n-$c" | head -3 | tr '\n' ' ')
	if [ -s "$W/n-$c" ] && [ -z "$extra" ] && grep -qx trace_event_raw_event_sched_switch "$W/n-$c"; then
		ok "input-1-names-$c"
	else
		ko "input-1-names-$c (names not from the trace.dat: $extra)"
	fi
done
# 2. the map inside or beside a trace.dat is found by every command; ids of two recordings
#    without a map are never paired
refs() { awk '{n += $NF} END {print n + 0}'; }
for c in "report --folded" "export --format folded"; do
	t=$($SM $c "$W/lonely.dat" 2>/dev/null | grep -vc unknown)
	u=$($SM $c $D/trace.dat 2>/dev/null | grep -c unknown)
	if [ "$u" = 0 ] && [ "$($SM $c $D/trace.dat 2>/dev/null | refs)" = 217 ]; then
		ok "input-2-map-beside-${c%% *}"
	else
		ko "input-2-map-beside-${c%% *} ($u unknown)"
	fi
done
golden input-2-export-no-map $SM export --format folded "$W/lonely.dat"
cp "$W/lonely.dat" "$W/lonely2.dat"
$SM diff "$W/lonely.dat" "$W/lonely2.dat" >"$W/d-nomap" 2>/dev/null
if grep -q '\] of A [0-9]* 0$' "$W/d-nomap" && grep -q '\] of B 0 [0-9]*$' "$W/d-nomap" &&
	! grep -q 'unknown.* [1-9][0-9]* [1-9][0-9]*$' "$W/d-nomap"; then
	ok input-2-diff-never-pairs-unknown-ids
else
	ko input-2-diff-never-pairs-unknown-ids
	head -3 "$W/d-nomap"
fi
# 3. attribution: a record without a format is an (unknown event) with its own stack, never a
#    stack of the event before it; after lost events (a flagged page, a LOST or DROPPED line in
#    any of the kernel's and trace-cmd's spellings) the next stack goes to (lost event), unless
#    the CPU had no event yet (the start of its data: (no event))
python3 tests/datfix.py unknown $D/trace.dat "$W/unk.dat" sched_wakeup
cp $D/stack_map_bin "$W/stack_map_bin"
golden input-3-unknown-report $SM report --top 1 "$W/unk.dat"
ss=$($SM export --format folded "$W/unk.dat" 2>/dev/null | grep '^sched_switch;' | refs)
us=$($SM export --format folded "$W/unk.dat" 2>/dev/null | grep '^(unknown event);' | refs)
if [ "$ss" = 146 ] && [ "$us" = 71 ]; then ok input-3-unknown-export; else ko "input-3-unknown-export ($ss, $us)"; fi
python3 tests/datfix.py missed $D/trace.dat "$W/missed.dat" 0 1
golden input-3-missed-report $SM report --top 0 "$W/missed.dat"
lo=$($SM export --format folded "$W/missed.dat" 2>/dev/null | grep '^(lost event);' | refs)
if [ "$lo" = 1 ]; then ok input-3-missed-export; else ko "input-3-missed-export ($lo)"; fi
cat >"$W/lost.txt" <<'TXT'
CPU:2 [LOST EVENTS]
d-4 [002] d..2. 0.999999: <stack_id 12>
a-1 [000] d..2. 1.000000: kmem_cache_alloc: x
a-1 [000] d..2. 1.000001: <stack_id 9>
b-2 [001] d..2. 1.000002: sched_switch: prev_comm=b prev_pid=2 prev_prio=120 prev_state=S ==> next_comm=c next_pid=3 next_prio=120
CPU:1 [LOST 12 EVENTS]
b-2 [001] d..2. 1.000003: <stack_id 3>
a-1 [000] d..2. 1.000004: kmem_cache_alloc: y
CPU:0 [5 EVENTS DROPPED]
a-1 [000] d..2. 1.000005: <stack_id 9>
c-3 [001] d..2. 1.000006: [UNKNOWN EVENT]
c-3 [001] d..2. 1.000007: <stack_id 7>
c-3 [001] d..2. 1.000008: kmem_cache_alloc: z
CPU:1 [EVENTS DROPPED]
c-3 [001] d..2. 1.000009: <stack_id 3>
d-4 [002] d..2. 1.000010: kmem_cache_alloc: w
CPU:2 [LOST EVENTS]
d-4 [002] d..2. 1.000011: <stack_id 12>
TXT
golden input-3-lost-events "$B/evdump" "$W/lost.txt"
golden input-3-lost-report $SM report $K --top 1 --map "$W/basic.bin" "$W/lost.txt"
golden input-3-lost-export $SM export $K --format folded --map "$W/basic.bin" "$W/lost.txt"
# 4. anything that is not a trace is refused with what it is, by every reading command
cp $D/stack_map_bin "$W/smbin-alone"
cp "$B/htab_test" "$W/elf-file"
{ printf 'X'; tail -c +2 $D/trace.dat; } >"$W/badmagic.dat"
: >"$W/empty-file"
for k in elf:"$W/elf-file" smbin:"$W/smbin-alone" kallsyms:tests/fixtures/kallsyms magic:"$W/badmagic.dat" \
	empty:"$W/empty-file"; do
	golden "input-4-report-${k%%:*}" $SM report "${k#*:}"
	golden "input-4-export-${k%%:*}" $SM export --format folded "${k#*:}"
	golden "input-4-diff-${k%%:*}" $SM diff $D/trace.dat "${k#*:}"
done
# 5. a directory is read the same way by every command: DIR/trace.dat first, whatever else
mkdir -p "$W/both" && cp $D/trace.dat $D/stack_map_bin "$W/both/" && cp $X "$W/both/trace"
r5=$($SM report --folded "$W/both" 2>/dev/null | refs)
e5=$($SM export --format folded "$W/both" 2>/dev/null | refs)
if [ "$r5" = 217 ] && [ "$e5" = 217 ]; then ok input-5-dir-same-file; else ko "input-5-dir-same-file ($r5, $e5)"; fi
# 7. one policy for malformed input, -i and - everywhere, status once on stderr
golden input-7-diff-corrupt $SM diff $K tests/fixtures/trace.txt $X
mkdir -p "$W/torn" && cp "$W/trunc-trace" "$W/torn/trace" && cp "$W/basic.bin" "$W/torn/stack_map_bin"
golden input-7-diff-torn $SM diff $K "$W/torn" "$W/ra"
if [ "$($SM report $K --map "$W/basic.bin" $T 2>/dev/null | grep -c 'missing\|unknown stack_id N')" = 0 ] &&
	[ "$($SM report $K --map "$W/basic.bin" $T 2>&1 >/dev/null | grep -c 'missing from')" = 1 ]; then
	ok input-7-notes-once-on-stderr
else
	ko input-7-notes-once-on-stderr
fi
expect input-7-report-i-file '^# 217 events' $SM report -i $D/trace.dat
expect input-7-export-i-file '^sched_switch;' $SM export --format folded -i $D/trace.dat
expect input-7-dump-i-file '^stack_id ' $SM dump -i $D/trace.dat
expect input-7-export-stdin '^sched_switch;' sh -c "$SM export $K --format folded $XM - < $X"
expect input-7-report-stdin '^# 8 events' sh -c "$SM report $K $XM - < $X"
golden input-7-export-by-pprof $SM export --format pprof --by comm $XM $X
golden input-7-export-color-folded $SM export --format folded --color module $XM $X
golden input-7-export-title-pprof $SM export --format pprof --title x $XM $X
golden input-7-dump-json-folded $SM dump --json --folded "$W/basic.bin"
golden input-7-report-json-folded $SM report --json --folded $D/trace.dat
expect input-7-version-after-command '^stackmap ' $SM report -V
expect input-7-version-after-export '^stackmap ' $SM export --version
sh tests/fake_tracefs.sh "$F" "$W/basic.bin"
expect input-7-dump-tracefs '^stack_id 3 ' $SM --tracefs "$F" dump --no-kallsyms
expect input-7-stat-tracefs-env '^entries: +5 / 16384' env STACKMAP_TRACEFS="$F" $SM stat
# 8. symbols that do not belong to the recording are said so (like perf's mismatch warning)
$SM report --kallsyms tests/fixtures/kallsyms $D/trace.dat >/dev/null 2>"$W/mismatch"
if grep -q 'do not belong to this recording' "$W/mismatch"; then ok input-8-mismatch-warning; else ko input-8-mismatch-warning; fi
$SM report $D/trace.dat >/dev/null 2>"$W/match"
if ! grep -q 'do not belong' "$W/match"; then ok input-8-no-false-warning; else ko input-8-no-false-warning; fi
# the defaults of a reading command without input: ./trace.dat, else ./stackmap.data
mkdir -p "$W/cwd1" "$W/cwd2/stackmap.data" "$W/cwd3"
cp $D/trace.dat "$W/cwd1/" && cp $D/trace.dat $D/stack_map_bin "$W/cwd2/stackmap.data/"
expect input-default-trace-dat '^# 217 events' sh -c "cd '$W/cwd1' && '$PWD/$SM' report"
expect input-default-record-dir '^# 217 events' sh -c "cd '$W/cwd2' && '$PWD/$SM' report"
golden input-default-none sh -c "cd '$W/cwd3' && '$PWD/$SM' report"

# --- exporters, record, symbols, output files (tool-exp) -----------------------------------
# End markers of sections (_etext, __*_end, __end_*, __stop_*, _einittext, _edata, _end) never
# resolve an address: the symbol before them ends there, addresses past them stay hex; the
# last symbol of an object never runs into another module (it ends at its 4 KiB page)
cat >"$W/kallsyms-ends" <<'KS'
ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81000100 T last_core_fn
ffffffff81000200 T __entry_text_start
ffffffff81000200 T entry_SYSCALL_64
ffffffff81000300 T __entry_text_end
ffffffff81000800 T __irqentry_text_start
ffffffff81000800 T asm_common_interrupt
ffffffff81000900 T __irqentry_text_end
ffffffff81000a00 T __softirqentry_text_start
ffffffff81000a00 T __do_softirq
ffffffff81000b00 T __softirqentry_text_end
ffffffff81000c00 T late_text_fn
ffffffff81001000 T _etext
ffffffff83000000 T _sinittext
ffffffff83000000 T start_kernel
ffffffff83000400 T _einittext
ffffffff83100000 t __end_of_init
ffffffff83200000 T __stop___kprobes
ffffffff83300000 t cold_fn
ffffffff84000000 T _edata
ffffffff85000000 T _end
ffffffffc0001800 t mod_fn	[mod_a]
ffffffffc0005000 T mod_b_fn	[mod_b]
KS
$MKBIN addrs "$W/ends.bin" ffffffff81000010 ffffffff81000250 ffffffff81000300 ffffffff81000400 \
	ffffffff81000850 ffffffff81000a40 ffffffff81000b10 ffffffff81000c10 ffffffff81001000 \
	ffffffff81100000 ffffffff83000010 ffffffff83000500 ffffffff83100010 ffffffff84000010 \
	ffffffff83300010 ffffffff83500000 ffffffff85000000 ffffffff85100000 ffffffffc0001810 \
	ffffffffc0001fff ffffffffc0002010 ffffffffc0005010 ffffffffc0005800 ffffffffc0006000
golden syms-end-markers $SM dump --kallsyms "$W/kallsyms-ends" "$W/ends.bin"
# a kallsyms that does not belong to the map: most frames resolve to nothing, dump says so
printf 'ffffffff90000000 T _text\nffffffff90000000 T elsewhere\nffffffff90001000 T _etext\n' \
	>"$W/kallsyms-other"
golden syms-mismatch-warning $SM dump --kallsyms "$W/kallsyms-other" --top 1 "$W/basic.bin"
golden syms-match-no-warning $SM dump $K --top 1 "$W/basic.bin"
# -o is a redirection: through a symlink the target is replaced and the symlink stays; an
# existing file keeps its mode; a new one gets 0666 & ~umask; a failure leaves nothing behind
mkdir -p "$W/o" "$W/o2"
echo old >"$W/o2/real.folded"
ln -s ../o2/real.folded "$W/o/link.folded"
$SM export $K --format folded -o "$W/o/link.folded" $XM $X 2>/dev/null
$SM export $K --format folded $XM $X 2>/dev/null >"$W/o.want"
if [ -L "$W/o/link.folded" ] && cmp -s "$W/o.want" "$W/o2/real.folded" &&
	[ "$(ls "$W/o" "$W/o2" | grep -c "\.tmp-")" = 0 ]; then
	ok output-through-symlink
else
	ko "output-through-symlink ($(ls -l "$W/o" "$W/o2" | tr '\n' ' '))"
fi
echo old >"$W/o/private.folded"
chmod 0600 "$W/o/private.folded"
$SM export $K --format folded -o "$W/o/private.folded" $XM $X 2>/dev/null
expect output-keeps-mode '^600 ' sh -c "stat -c '%a %s' '$W/o/private.folded'"
(umask 077 && $SM export $K --format folded -o "$W/o/new.folded" $XM $X 2>/dev/null)
(umask 002 && $SM export $K --format folded -o "$W/o/new2.folded" $XM $X 2>/dev/null)
expect output-new-file-umask '^600 664$' sh -c "echo \$(stat -c %a '$W/o/new.folded' '$W/o/new2.folded')"
# a dangling symlink creates its target, as a shell redirection does
ln -s ../o2/created.folded "$W/o/dangling.folded"
$SM export $K --format folded -o "$W/o/dangling.folded" $XM $X 2>/dev/null
expect output-dangling-symlink '^link ' sh -c "[ -L '$W/o/dangling.folded' ] && cmp '$W/o.want' '$W/o2/created.folded' && echo link ok"
# failures: bad input through a symlink, a write error (file size limit 0: EFBIG) after the
# temporary was created, a directory that cannot take the temporary file
ln -s ../o2/never.folded "$W/o/never.folded"
TC=tests/fixtures/trace.txt # (corrupt: a malformed <stack_id>)
golden output-failure-leaves-nothing sh -c "$SM export $K --format folded -o '$W/o/never.folded' $XM $TC;
	echo exit \$?; $SM export $K --format folded -o '$W/o/link.folded' $XM $TC; echo exit \$?;
	(trap '' XFSZ; ulimit -f 0; $SM export $K --format folded -o '$W/o/link.folded' $XM $X 2>&1;
	echo exit \$?) | cat;
	ls '$W/o' '$W/o2'; cmp '$W/o.want' '$W/o2/real.folded' && echo target unchanged"
golden output-err-no-dir $SM export $K --format folded -o "$W/nodir/x.folded" $XM $X
# record owns -o DIR: an earlier recording there moves to DIR.old (an older DIR.old is
# replaced), anything record did not write makes it refuse (exit 2) and touch nothing
RK="--kallsyms tests/fixtures/kallsyms"
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
$SM --tracefs "$F" record -F both -e sched -o "$W/own" $RK -- true >/dev/null 2>&1
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
golden record-dir-moved-aside sh -c "$SM --tracefs $F record -F dat -e sched -o $W/own $RK -- true >/dev/null;
	echo exit \$?; ls $W/own $W/own.old"
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
golden record-dir-old-replaced sh -c "$SM --tracefs $F record -F text -e sched -o $W/own $RK -- true >/dev/null;
	echo exit \$?; ls $W/own $W/own.old"
mkdir -p "$W/foreign" && echo mine >"$W/foreign/notes.txt" && : >"$W/foreign/trace"
golden record-dir-foreign sh -c "$SM --tracefs $F record -o $W/foreign $RK -- true; echo exit \$?;
	ls $W/foreign; sh tests/run_state.sh $F"
echo mine >"$W/own.old/notes.txt"
golden record-dir-foreign-old sh -c "$SM --tracefs $F record -o $W/own $RK -- true; echo exit \$?;
	ls $W/own $W/own.old"
mkdir -p "$W/emptyout"
expect record-dir-empty-used '^trace$' sh -c "$SM --tracefs $F record -F text -o $W/emptyout $RK -- true >/dev/null 2>$W/empty.err &&
	! [ -s $W/empty.err ] && ! [ -e $W/emptyout.old ] && ls $W/emptyout | grep -x trace"
# no tracefs: a missing directory, or one that is not a tracefs (the empty mount point)
golden record-err-no-tracefs $SM --tracefs "$W/no-tracefs" record -o "$W/rec" -- true
mkdir -p "$W/empty-tracefs"
golden record-err-not-tracefs $SM --tracefs "$W/empty-tracefs" record -o "$W/rec" -- true
# record stores a wall-clock reference as trace-cmd's DATE option (realtime - trace clock, in
# microseconds): trace-cmd report shows wall-clock times, --nodate the trace clock's. The fake
# tracefs says [local], taken as CLOCK_MONOTONIC_RAW.
sh tests/fake_tracefs.sh "$F" $D/stack_map_bin
$SM --tracefs "$F" record -F dat -e sched -o "$W/recdate" $RK -- true >/dev/null 2>&1
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	expect record-dat-date-option '^0x[0-9a-f]+$' sh -c "trace-cmd dump --options -i '$W/recdate/trace.dat' 2>&1 |
		grep -A1 'Option DATE' | tail -1"
	trace-cmd report -i "$W/recdate/trace.dat" 2>/dev/null | awk 'NR == 2 {sub(":", "", $3); print $3}' >"$W/date.wall"
	trace-cmd report --nodate -i "$W/recdate/trace.dat" 2>/dev/null | awk 'NR == 2 {sub(":", "", $3); print $3}' >"$W/date.raw"
	expect record-dat-date-wall-clock 'wall clock ok' python3 -c 'import sys, time
wall, raw = (float(open(f).read()) for f in sys.argv[1:3])
want = time.time() - time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
print("wall clock ok" if abs(wall - raw - want) < 5 else "off by %.3f s" % (wall - raw - want))' \
		"$W/date.wall" "$W/date.raw"
	# the reader (td_file.have_date) gives the offset trace-cmd stores, in nanoseconds
	us=$(trace-cmd dump --options -i "$W/recdate/trace.dat" 2>&1 | grep -A1 'Option DATE' | tail -1)
	expect record-dat-date-reader "^date offset $((us))000 ns\$" "$B/expwall" date "$W/recdate/trace.dat"
	expect dat-no-date '^no date$' "$B/expwall" date $D/trace.dat
fi
# pprof: every sample's root frame is its event type ("[event TYPE]", no mapping; also checked
# by check_pprof.py above), so allocation and scheduling stacks never share a node; time_nanos
# is wall-clock time when the profile knows the offset (unit level: tests/expwall.c)
if command -v go >/dev/null 2>&1; then
	GP="env HOME=$W GOCACHE=$W/gocache go tool pprof"
	expect pprof-event-roots '^ +0 +0% +[0-9.]+% +5 62\.50%  \[event sched_switch\]$' $GP -top "$W/a.pb.gz"
	"$B/expwall" pprof 1767225600000000000 $X "$W/basic.bin" >"$W/wall.pb.gz" 2>/dev/null
	expect pprof-wall-clock '^Time: Jan 1, 2026 at 12:00am \(UTC\)$' $GP -top "$W/wall.pb.gz"
fi
# Perfetto: every stack reference is also a TrackEvent instant on its thread's track with the
# callstack_iid of its stack (tests/check_perfetto.py checks them against the perf samples)
if command -v protoc >/dev/null 2>&1; then
	expect perfetto-instants '^instant [0-9]+ TYPE_INSTANT track=[0-9]+ kmem_cache_alloc callstack=[1-9][0-9]* kmem_cache_alloc;' \
		python3 tests/check_perfetto.py "$W/t.decoded"
	expect perfetto-thread-tracks '^track [0-9]+ tid=200 pid=200 cat$' python3 tests/check_perfetto.py "$W/t.decoded"
fi
# KernelShark's one-line form of the plugin (kept in this section, next to nothing else of
# the plugin tests, for clean merges): -O stackmap:oneline=1 or STACKMAP_ONELINE=1
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	export TRACEEVENT_PLUGIN_DIR=$B
	trace-cmd report -O stackmap:oneline=1 -i $D/trace.dat >"$W/tc1" 2>"$W/tc1err"
	ids=$(grep -c 'kernel_stack_id: *<stack_id' "$W/tc1")
	one=$(grep -cE 'kernel_stack_id: *<stack_id [0-9]+> [^ ].*$' "$W/tc1")
	if [ "$ids" -gt 0 ] && [ "$ids" = "$one" ] && ! grep -q '^=> ' "$W/tc1" && [ ! -s "$W/tc1err" ]; then
		ok "plugin-oneline ($ids id events on one line)"
	else
		ko "plugin-oneline ($ids id events, $one on one line)"
		grep -m3 -A1 'kernel_stack_id' "$W/tc1"
	fi
	# the first id's frames, innermost first, are the ones dump gives
	id=$(grep -m1 -o 'kernel_stack_id: *<stack_id [0-9]*' "$W/tc1" | grep -o '[0-9]*$')
	grep -m1 "<stack_id $id> " "$W/tc1" | sed "s/.*<stack_id $id> //" | sed 's/ <- /\n/g' >"$W/one-frames"
	$SM dump $D/trace.dat | awk -v id="$id" '$1 == "stack_id" {on = $2 == id; next}
		on && /^  \[/ {sub(/\+.*/, "", $2); print $2}' >"$W/one-dump"
	if [ -s "$W/one-frames" ] && cmp -s "$W/one-frames" "$W/one-dump"; then
		ok "plugin-oneline-frames (stack_id $id)"
	else
		ko "plugin-oneline-frames (stack_id $id)"
		diff "$W/one-dump" "$W/one-frames" | head -5
	fi
	STACKMAP_ONELINE=1 trace-cmd report -i $D/trace.dat 2>&1 | cmp -s - "$W/tc1" && ok plugin-oneline-env ||
		ko plugin-oneline-env
	unset TRACEEVENT_PLUGIN_DIR
fi

# --- stack definitions (kernel_stack_def records, <stack_def N gen G> blocks): a recording that
# defines its stacks needs no map; definitions win over the map, which serves the ids whose
# definition was lost, in its own generation only (the rules: stackmap.1, INPUT) -------------
DT=tests/fixtures/trace-defs.txt
DW=$W/defs # (no stack_map_bin beside the files made here)
mkdir -p "$DW"
# (a) text, no map anywhere: every id from the definitions (one used on CPU 0 before CPU 2
# committed its definition, one defined twice), nothing on stderr
golden defs-text-report $SM report $DT
golden defs-text-json $SM report --json --top 1 $DT
golden defs-text-folded $SM export --format folded $DT
golden defs-text-events "$B/evdump" $DT
# (b) one definition lost (stack_id 9 used, never defined): the map resolves it
golden defs-text-lost-def $SM report $K --map "$W/basic.bin" tests/fixtures/trace-defs-map.txt
golden defs-text-lost-def-no-map $SM report $K tests/fixtures/trace-defs-map.txt
# (b2) ... and with the stack_map_stat of a kernel that counts lost definitions beside it: the
# note says whether the kernel lost definitions (defs_lost) or the id came before them
for n in 2 0; do
	mkdir -p "$DW/lost-$n"
	cp tests/fixtures/trace-defs-map.txt "$DW/lost-$n/trace"
	printf 'entries:      5 / 16384\ngeneration:   0\ndefs_lost:    %s\n' $n \
		>"$DW/lost-$n/stack_map_stat"
	golden defs-text-defs-lost-$n $SM report $K "$DW/lost-$n"
done
# (c) two generations in one text: stack_id 3 is another stack in each; stack_id 9, never
# defined, resolves from the map (stack_map_stat: generation 1) in generation 1 only
mkdir -p "$W/gens"
cp tests/fixtures/trace-defs-gens.txt "$W/gens/trace"
cp "$W/basic.bin" "$W/gens/stack_map_bin"
printf 'entries:      5 / 16384\ngeneration:   1\n' >"$W/gens/stack_map_stat"
golden defs-text-generations $SM report $K "$W/gens"
golden defs-text-generations-folded $SM export $K --format folded "$W/gens"
# (c2) one id defined again with another stack (after 8192 map switches an id comes back in
# the same generation): a reference takes the latest definition not after it, else the
# earliest; every task is named after a frame of the stack it must get
DWR=tests/fixtures/trace-defs-wrap.txt
golden defs-text-wrap-report $SM report $DWR
golden defs-text-wrap-folded $SM export --format folded --by pid $DWR
own_stacks() { # FOLDED (--by pid): is every line's task named after one of its frames?
	awk -F';' '{
		split($1, t, "-")
		ok = 0
		for (i = 2; i <= NF; i++) {
			f = $i
			sub(/ [0-9]+$/, "", f)
			if (f == t[1])
				ok = 1
		}
		n++
		if (!ok)
			bad = bad " " $1
	} END { print n, "references:", bad == "" ? "each from its own definition" : "wrong:" bad }' "$1"
}
$SM export --format folded --by pid $DWR >"$DW/wrap.folded" 2>/dev/null
expect defs-text-wrap-each-its-own '^10 references: each from its own definition$' \
	own_stacks "$DW/wrap.folded"
# (c3) definitions with their switch counts (the kernel's "switch S"): a reference gets the
# count, among those with its id's bits, nearest to the highest one defined up to it, so a use
# before its definition on another CPU, and a use of an id that its switch never defined,
# are not taken for switch 1's stack of the same id (without the counts they are: the rule of
# (c2)); a dump resolves only ids of the switches it holds (version 2's header)
DSW=tests/fixtures/trace-defs-switch.txt
golden defs-text-switch-report $SM report $DSW
$SM export --format folded --by pid $DSW >"$DW/switch.folded" 2>/dev/null
expect defs-text-switch-each-its-own '^9 references: wrong: unresolved-60$' \
	own_stacks "$DW/switch.folded"
sed 's/<stack_def 262144 gen 0 switch 8193>/<stack_def 262144 gen 0 switch 8194>/' $DSW \
	>"$DW/def-switch-bits.txt"
golden defs-text-err-switch-bits $SM report "$DW/def-switch-bits.txt"
mkdir -p "$DW/sw-new" "$DW/sw-old"
cp $DSW "$DW/sw-new/trace"
cp $DSW "$DW/sw-old/trace"
$MKBIN switched "$DW/sw-new/stack_map_bin" 8194 262144 262150 524288 || ko "mkbin switched"
$MKBIN switched "$DW/sw-old/stack_map_bin" 1 5 262149 262150 || ko "mkbin switched"
golden defs-text-switch-map-new $SM report $K "$DW/sw-new"
golden defs-text-switch-map-old $SM report $K "$DW/sw-old"
golden dump-switched $SM dump $K "$DW/sw-new/stack_map_bin"
$MKBIN switched "$DW/sw-bad.bin" 8194 5 262144 || ko "mkbin switched"
golden dump-err-switch $SM dump "$DW/sw-bad.bin"
# (d) a malformed definition: FILE:LINE and the reason, exit 1, no output (no file either)
sed 's/<stack_def 7 gen 0>/<stack_def x gen 0>/' $DT >"$DW/def-bad-id.txt"
sed 's/<stack_def 2 gen 0>/<stack_def 2>/' $DT >"$DW/def-no-gen.txt"
sed 's/<stack_def 5 gen 0>/<stack_def 5 gen 4294967296>/' $DT >"$DW/def-big-gen.txt"
awk '/<stack_def 2 gen 0>/ {print; skip = 1; next} skip && /^ =>/ {next} {skip = 0; print}' $DT \
	>"$DW/def-no-frames.txt"
awk '{print} /<stack_def 5 gen 0>/ {for (i = 0; i < 65; i++) print " => f" i}' $DT \
	>"$DW/def-deep.txt"
# (the one-line form of plugin_stackmap: the frames on the definition's line)
awk '/<stack_def 2 gen 0>/ {s = $0 " f0"; for (i = 1; i < 65; i++) s = s " <- f" i; print s
	skip = 1; next} skip && /^ =>/ {next} {skip = 0; print}' $DT >"$DW/def-deep-inline.txt"
for c in bad-id no-gen big-gen no-frames deep deep-inline; do
	golden "defs-text-err-$c" $SM report "$DW/def-$c.txt"
	golden "defs-text-err-$c-export" $SM export --format pprof -o "$DW/def-out.pprof" "$DW/def-$c.txt"
done
if [ -e "$DW/def-out.pprof" ]; then ko defs-text-err-no-file; else ok defs-text-err-no-file; fi
# a definition whose frames a torn last line cut off is left out with the torn line
head -c $(($(grep -bo '<stack_def 2 gen 0>' $DT | cut -d: -f1) + 30)) $DT >"$DW/def-torn.txt"
golden defs-text-torn $SM report "$DW/def-torn.txt"
# the kernel's own text (the recording of tests/fixtures/defs, made with stack_map_defs = 1)
golden defs-text-real $SM report --top 2 tests/fixtures/defs/trace
# (e) trace.dat (trace-cmd record's stream from the 6.12 series with stack_map_defs, v7
# converted to v6 by trace-cmd convert and shrunk by datfix.py; every stack defined in it):
# alone it needs no map and says nothing; beside its own map the definitions win and agree
D2=tests/fixtures/defs
cp $D2/trace.dat "$DW/alone.dat"
golden defs-dat-no-map $SM report --top 2 "$DW/alone.dat"
golden defs-dat-with-map $SM report --top 1 $D2
golden defs-dat-json $SM report --json --top 1 $D2
$SM report --folded "$DW/alone.dat" >"$DW/a.folded" 2>&1
$SM report --folded $D2 >"$DW/b.folded" 2>&1
$SM export --format folded "$DW/alone.dat" 2>&1 | refs >"$DW/refs"
if cmp -s "$DW/a.folded" "$DW/b.folded" && [ "$(cat "$DW/refs")" = 774 ] &&
	! grep -q unknown "$DW/a.folded"; then
	ok defs-dat-same-with-and-without-map
else
	ko "defs-dat-same-with-and-without-map ($(cat "$DW/refs") references)"
fi
# the definition of stack_id 6 lost (padding in its place): the map beside resolves it, and
# without one its 95 references stay unknown
mkdir -p "$W/defs-drop"
python3 tests/datfix.py dropdef $D2/trace.dat "$W/defs-drop/trace.dat" 6
golden defs-dat-lost-def-no-map $SM report --top 1 "$W/defs-drop/trace.dat"
cp $D2/stack_map_bin $D2/stack_map_stat "$W/defs-drop/"
golden defs-dat-lost-def $SM report --top 1 "$W/defs-drop"
# a map that disagrees with the definitions of its generation: said once, definitions used
golden defs-dat-map-differs $SM report --top 0 --map "$W/basic.bin" $D2/trace.dat
golden defs-dat-dump-no-map $SM dump "$DW/alone.dat"
# a kernel_stack_def whose size is negative, 0, more than 64 frames or more than the record
# holds (stack_id 6 has 10 frames, 80 bytes): the offset of its size field and the reason,
# exit 1, nothing written, in every reading command
for v in -1 0 65 11; do
	python3 tests/datfix.py defsize $D2/trace.dat "$DW/defsize$v.dat" 6 "$v"
	golden "defs-dat-err-size$v" $SM report "$DW/defsize$v.dat"
	golden "defs-dat-err-size$v-export" $SM export --format perfetto -o "$DW/defsize.out" \
		"$DW/defsize$v.dat"
done
golden defs-dat-err-size-diff $SM diff "$DW/alone.dat" "$DW/defsize11.dat"
if [ -e "$DW/defsize.out" ]; then ko defs-dat-err-no-file; else ok defs-dat-err-no-file; fi
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	# version 7 (zstd), as trace-cmd record writes it: the same report
	trace-cmd convert -i $D2/trace.dat --file-version 7 --compression zstd -o "$DW/v7.dat" \
		>/dev/null 2>&1
	$SM report --top 2 "$DW/v7.dat" >"$DW/v7.out" 2>&1
	if $SM report --top 2 "$DW/alone.dat" 2>&1 | sed "s|alone.dat|v7.dat|" |
		cmp -s - "$DW/v7.out"; then
		ok defs-dat-v7
	else
		ko defs-dat-v7
		head -3 "$DW/v7.out"
	fi
	# (f) the plugin, with no map: every definition and every id event is followed by its
	# frames, nothing on stderr; an id's frames are its definition's
	export TRACEEVENT_PLUGIN_DIR=$B
	trace-cmd report -i "$DW/alone.dat" >"$W/dtc" 2>"$W/dtcerr"
	plugin_frames plugin-defs-no-map "$W/dtc" "$W/dtcerr" "" 131 774
	frames_of() { # FILE PATTERN: the function names of the first block after PATTERN
		awk -v p="$2" 'index($0, p) {on = 1; next} on && /^=> / {print $2; next} on {exit}' "$1"
	}
	frames_of "$W/dtc" '<stack_def 6 gen 0>' >"$W/def6"
	frames_of "$W/dtc" '<stack_id 6>' >"$W/id6"
	$SM dump --map $D2/stack_map_bin "$DW/alone.dat" | awk '$1 == "stack_id" {on = $2 == 6; next}
		on && /^  \[/ {sub(/\+.*/, "", $2); print $2}' >"$W/dump6"
	if [ -s "$W/id6" ] && cmp -s "$W/id6" "$W/def6" && cmp -s "$W/id6" "$W/dump6"; then
		ok plugin-defs-id-from-definition
	else
		ko plugin-defs-id-from-definition
		diff "$W/dump6" "$W/id6" | head -5
	fi
	trace-cmd report -O stackmap:oneline=1 -i "$DW/alone.dat" >"$W/dtc1" 2>"$W/dtc1err"
	if [ "$(grep -cE 'kernel_stack_def: *<stack_def [0-9]+ gen 0> [^ ].* <- ' "$W/dtc1")" = 131 ] &&
		! grep -q '^=> ' "$W/dtc1"; then
		ok plugin-defs-oneline
	else
		ko plugin-defs-oneline
	fi
	# a lost definition: from the map beside the file when there is one, else the bare id
	# and the once-only message
	trace-cmd report -i "$W/defs-drop/trace.dat" >"$W/dtc2" 2>"$W/dtc2err"
	frames_of "$W/dtc2" '<stack_id 6>' >"$W/id6-map"
	if cmp -s "$W/id6-map" "$W/dump6" && [ ! -s "$W/dtc2err" ]; then ok plugin-defs-lost-from-map; else ko plugin-defs-lost-from-map; fi
	cp "$W/defs-drop/trace.dat" "$DW/drop-alone.dat"
	trace-cmd report -i "$DW/drop-alone.dat" >"$W/dtc3" 2>"$W/dtc3err"
	if [ "$(grep -c 'plugin_stackmap: no stack map' "$W/dtc3err")" = 1 ] &&
		[ "$(grep -c 'kernel_stack_id: *<stack_id 6>$' "$W/dtc3")" = 95 ] &&
		[ "$(grep -A1 'kernel_stack_id: *<stack_id 6>$' "$W/dtc3" | grep -c '^=> ')" = 0 ]; then
		ok plugin-defs-lost-no-map
	else
		ko plugin-defs-lost-no-map
	fi
	# trace-cmd report's text with the plugin is an input like any other: the same stacks
	$SM report --folded "$W/dtc" >"$W/dtc.folded" 2>&1
	if cmp -s "$W/dtc.folded" "$DW/a.folded"; then ok defs-trace-cmd-text-equals-dat; else
		ko defs-trace-cmd-text-equals-dat
		diff "$DW/a.folded" "$W/dtc.folded" | head -5
	fi
	# ... and in the one-line form (the frames of a definition on its line, joined by " <- ")
	$SM report --folded "$W/dtc1" >"$W/dtc1.folded" 2>&1
	if cmp -s "$W/dtc1.folded" "$DW/a.folded"; then ok defs-trace-cmd-oneline-equals-dat; else
		ko defs-trace-cmd-oneline-equals-dat
		diff "$DW/a.folded" "$W/dtc1.folded" | head -5
	fi
	unset TRACEEVENT_PLUGIN_DIR
fi
# record --defs: stack_map_defs is 1 while the command runs and 0 again after; a kernel
# without the file is refused before anything changes, naming it
sh tests/fake_tracefs.sh "$F" "$W/basic.bin"
golden record-defs sh -c "$SM --tracefs $F record --defs -F text -o $W/recdefs $RK -- \
	sh -c 'echo during: \$(cat $F/stack_map_defs)'; echo exit \$?;
	echo after: \$(cat $F/stack_map_defs); sh tests/run_state.sh $F"
echo 1 >"$F/stack_map_defs"
golden record-defs-was-on sh -c "$SM --tracefs $F record --defs -F text -o $W/recdefs1 $RK -- true >/dev/null;
	echo exit \$?; echo after: \$(cat $F/stack_map_defs)"
rm "$F/stack_map_defs"
golden record-defs-err-no-file sh -c "$SM --tracefs $F record --defs -o $W/recdefs2 $RK -- true;
	echo exit \$?; ls $W/recdefs2 2>&1 | sed 's/.*: //'; sh tests/run_state.sh $F"

# --- buffer instances: a trace.dat with the buffers of ftrace instances ------------------
# tests/fixtures/inst: trace-cmd record -q -B smtc -O stackmap -O stacktrace -e
# sched:sched_switch in the QEMU guest running the series (trace-cmd 3.1.6, v7, zstd), with
# stack_map_defs set in the instance, which trace-cmd removed at the end: no stack_map_bin, the
# definitions in the buffer resolve it. The top level's buffer is there with 0 CPUs. Made with
#   trace-cmd convert -i REC/trace.dat --file-version 6 -o v6.dat
#   python3 tests/datfix.py shrink v6.dat defs $I/trace-v6.dat 100
#   python3 tests/datfix.py shrink7 REC/trace.dat $I/trace-v6.dat $I/trace.dat
#   trace-cmd convert -i $I/trace-v6.dat --file-version 7 --compression none -o $I/trace-v7-none.dat
# (v6: the top level's table has 2 empty CPUs; trace-cmd convert to v7 leaves the top level out)
I=tests/fixtures/inst
IW=$W/inst
mkdir -p "$IW"
# the default reads smtc, the one buffer with data: every id from its definitions, no map
golden inst-report $SM report --top 2 $I/trace.dat
golden inst-report-json $SM report --json --top 1 $I/trace.dat
$SM report --top 2 $I/trace.dat >"$IW/default" 2>&1
for v in "--buffer smtc $I/trace.dat" "$I/trace-v6.dat" "--buffer smtc $I/trace-v6.dat" \
	"$I/trace-v7-none.dat" "--buffer=smtc $I/trace-v7-none.dat"; do
	if $SM report --top 2 $v 2>&1 | cmp -s - "$IW/default"; then
		ok "inst-same-report ($v)"
	else
		ko "inst-same-report ($v)"
		$SM report --top 2 $v 2>&1 | diff "$IW/default" - | head -5
	fi
done
# every reading command: 321 references, none unknown, nothing said
for c in "export --format folded" "export --format folded --buffer smtc" "report --folded"; do
	$SM $c $I/trace.dat >"$IW/folded" 2>"$IW/folded.err"
	if [ "$(refs <"$IW/folded")" = 321 ] && ! grep -q unknown "$IW/folded" && [ ! -s "$IW/folded.err" ]; then
		ok "inst-refs ($c)"
	else
		ko "inst-refs ($c: $(refs <"$IW/folded") references)"
		head -3 "$IW/folded.err"
	fi
done
# a buffer that is not there: named, with the ones that are; the top level without events;
# --buffer on an input that is not a trace.dat
golden inst-err-nosuch $SM report --buffer nosuch $I/trace.dat
golden inst-err-nosuch-notop $SM export --format folded --buffer '' $I/trace-v7-none.dat
golden inst-err-top-empty $SM report --buffer '' $I/trace.dat
golden inst-err-text $SM report --buffer smtc tests/fixtures/trace-defs.txt
golden inst-err-map $SM dump --buffer smtc $D/stack_map_bin
# two buffers hold data: no default; each one read by name (v6 and, converted, v7). "other"
# is smtc's copy without the definition of stack_id 3 (2 references): its own answer
python3 tests/datfix.py dupbuf $I/trace-v6.dat "$IW/two0.dat" smtc other
python3 tests/datfix.py dropdef "$IW/two0.dat" "$IW/two.dat" 3 other
golden inst-two-err $SM report "$IW/two.dat"
golden inst-two-err-diff $SM diff "$IW/two.dat" $I/trace.dat
golden inst-two-other $SM report --top 1 --buffer other "$IW/two.dat"
two_ok() { # NAME FILE
	if $SM report --top 2 --buffer smtc "$2" 2>&1 | cmp -s - "$IW/default" &&
		$SM report --top 2 --buffer other "$2" 2>/dev/null | sed 1,4d |
		cmp -s - "$IW/default.body" &&
		$SM report --top 0 --buffer other "$2" 2>&1 | grep -q '^# stacks: 29 .* 1 unresolved' &&
		! $SM report "$2" >/dev/null 2>&1 &&
		[ "$($SM diff --buffer other "$2" "$2" 2>/dev/null |
			awk '$(NF - 1) == $NF {n += $NF} END {print n + 0}')" = 319 ] &&
		[ "$($SM diff --buffer other "$2" "$2" 2>/dev/null | grep -c 'stack_id 3\] of [AB]')" = 2 ]; then
		ok "$1"
	else
		ko "$1"
	fi
}
sed 1,4d "$IW/default" >"$IW/default.body"
two_ok inst-two-each-v6 "$IW/two.dat"
if command -v trace-cmd >/dev/null 2>&1; then
	trace-cmd convert -i "$IW/two.dat" --file-version 7 --compression zstd -o "$IW/two7.dat" >/dev/null 2>&1
	two_ok inst-two-each-v7 "$IW/two7.dat"
fi
# the top level holds data too: it is the default, and the other buffer is named once
python3 tests/datfix.py dupbuf $I/trace-v6.dat "$IW/top.dat" smtc ""
golden inst-top-default $SM report --top 0 "$IW/top.dat"
# the map beside a recording is the top level's: not used for smtc (a lost definition stays
# unknown, and the note says why); --map FILE is
mkdir -p "$IW/rec"
python3 tests/datfix.py dropdef $I/trace-v6.dat "$IW/rec/trace.dat" 3 smtc
cp "$W/basic.bin" "$IW/rec/stack_map_bin"
cp tests/fixtures/stat.txt "$IW/rec/stack_map_stat"
golden inst-map-beside-unused $SM report --top 0 "$IW/rec"
golden inst-map-option $SM report --top 0 --map "$W/basic.bin" "$IW/rec"
golden inst-dump-no-map $SM dump "$IW/rec"
golden inst-dump-map-option $SM dump $K --top 1 --map "$W/basic.bin" --buffer smtc "$IW/rec/trace.dat"
# a damaged description of the instance's buffer, or its pages: the offset and the reason,
# exit 1, no output file
for how in tag cpu; do
	python3 tests/datfix.py badbuf $I/trace-v6.dat "$IW/bad6-$how.dat" smtc $how
	golden "inst-err-v6-$how" $SM report "$IW/bad6-$how.dat"
	python3 tests/datfix.py badbuf $I/trace.dat "$IW/bad7-$how.dat" smtc $how
	golden "inst-err-v7-$how" $SM report "$IW/bad7-$how.dat"
done
python3 tests/datfix.py badpage $I/trace-v6.dat "$IW/badpage.dat" 0 smtc
golden inst-err-page $SM export --format pprof -o "$IW/out.pprof" "$IW/badpage.dat"
# the first chunk of CPU 0 of smtc (at 16384: chunk count, sizes, zstd frame) damaged
{ head -c 16404 $I/trace.dat; printf 'XXXX'; tail -c +16409 $I/trace.dat; } >"$IW/badchunk.dat"
golden inst-err-chunk $SM export --format pprof -o "$IW/out.pprof" "$IW/badchunk.dat"
if [ -e "$IW/out.pprof" ]; then ko inst-err-no-file; else ok inst-err-no-file; fi
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	# the plugin in trace-cmd report: every definition and id of smtc with its frames
	TRACEEVENT_PLUGIN_DIR=$B trace-cmd report -i $I/trace.dat >"$IW/tc" 2>"$IW/tcerr"
	plugin_frames plugin-inst "$IW/tc" "$IW/tcerr" "smtc: " 30 321
fi

# --- generations: ids that carry the switch of the map ------------------------------------
# A full map (or a write of "next" to stack_map) switches the instance to its second map while
# tracing runs; the full map is retired, and recycled once no buffer can hold its ids. An id is
# (switches % 8192) << 18 | index, the switches counted since the last reset (262144 is the
# first stack of switch 1); a definition's generation is still the reset count. The tool
# reads ids as numbers, by (generation, id), as before (stackmap.1, INPUT; the kernel's rules:
# Documentation/trace/ftrace-stackmap.rst, "Generations").
# tests/fixtures/gens: made by tests/fixtures/gens/gens-rec.sh in the QEMU guest running the
# series (trace-cmd 3.1.6), in one boot:
# - stream/: trace-cmd record -O stackmap -O stacktrace of sched_switch and sched_wakeup with
#   stack_map_defs = 1 while a loop wrote "next" to stack_map every 50 ms: 718 id records of
#   switch 0 (12 ids) and switch 1 (132 ids) and the 144 definitions; no later switch is in
#   it (a write of next fails with -EBUSY while the other map is still retired; the 12
#   switches of its stack_map_stat, read after the loop, include those after the recording,
#   and its stack_map_bin is empty). trace.dat is trace-cmd's (v7, zstd) with its kallsyms cut:
#     trace-cmd convert -i REC/trace.dat --file-version 6 -o v6.dat
#     python3 tests/datfix.py shrink v6.dat defs s6.dat 10
#     python3 tests/datfix.py shrink7 REC/trace.dat s6.dat $GS/trace.dat
# - flight/: the trace text of an overwrite buffer (16 KiB per CPU, no definitions, after a
#   reset: generation 1) stopped just after one "next": 135 references to 19 ids of switch 0,
#   45 to 16 ids of switch 1; stack_map_bin and stack_map list the retired map (ids 0-18)
#   and the map in use (262144-262159); stack_map_stat says switches 1, retired 19. kallsyms
#   is the stream's (the same bytes as the /proc/kallsyms gens-rec.sh saved) cut to the map's
#   frames:
#     python3 tests/datfix.py kallsyms v6.dat $GF/stack_map_bin $GF/kallsyms
GS=tests/fixtures/gens/stream
GF=tests/fixtures/gens/flight
GW=$W/gens-sw
mkdir -p "$GW"
# by_switch FILE: the stacks of report's text FILE by switch (id >> 18) and where they came
# from: distinct ids and references
by_switch() {
	awk '$3 == "stack_id" || $3 == "[unknown" {
		id = $3 == "stack_id" ? $4 : $5
		sub(/]$/, "", id)
		from = $3 == "[unknown" ? "unresolved" : $5 == "[gen" ? "from definitions" : "from the map"
		k = sprintf("switch %d, %s", int(id / 262144), from)
		refs[k] += $1
		if (!((k, id) in seen)) {
			seen[k, id] = 1
			ids[k]++
		}
	} END { for (k in refs) printf "%s: %d ids, %d references\n", k, ids[k], refs[k] }' "$1" |
		sort
}
# (a) the stream alone, no map anywhere: every id of both switches from its definitions (of
# generation 0), 0 unresolved, nothing said; in report, JSON, export and diff
cp $GS/trace.dat "$GW/alone.dat"
golden gens-stream-report $SM report --top 2 "$GW/alone.dat"
golden gens-stream-json $SM report --json --top 1 "$GW/alone.dat"
$SM report --top 100000 "$GW/alone.dat" >"$GW/all" 2>&1
golden gens-stream-switches by_switch "$GW/all"
$SM export --format folded "$GW/alone.dat" >"$GW/folded" 2>"$GW/folded.err"
folded_totals() { # FILE: per root of the folded FILE, its stacks (by frames) and references
	awk '{split($1, f, ";"); n[f[1]]++; r[f[1]] += $NF}
		END {for (e in n) print e ":", n[e], "stacks,", r[e], "references"}' "$1" | sort
}
golden gens-stream-folded-totals folded_totals "$GW/folded"
$SM report --folded "$GW/alone.dat" 2>/dev/null | agg >"$GW/rep.agg"
if [ "$(refs <"$GW/folded")" = 718 ] && ! grep -q unknown "$GW/folded" && [ ! -s "$GW/folded.err" ] &&
	agg <"$GW/folded" | cmp -s - "$GW/rep.agg"; then
	ok gens-stream-export-equals-report
else
	ko "gens-stream-export-equals-report ($(refs <"$GW/folded") references)"
fi
$SM diff "$GW/alone.dat" $GS/trace.dat >"$GW/diff" 2>&1
if [ "$(awk '$(NF - 1) == $NF {n += $NF} END {print n + 0}' "$GW/diff")" = 718 ] &&
	! grep -q unknown "$GW/diff"; then
	ok gens-stream-diff-self
else
	ko gens-stream-diff-self
	head -3 "$GW/diff"
fi
# beside its (empty) stack_map_bin and its stack_map_stat: the same stacks
$SM report --folded $GS >"$GW/dir.folded" 2>&1
$SM report --folded "$GW/alone.dat" >"$GW/alone.folded" 2>&1
if cmp -s "$GW/dir.folded" "$GW/alone.folded"; then ok gens-stream-with-empty-map; else
	ko gens-stream-with-empty-map
	diff "$GW/alone.folded" "$GW/dir.folded" | head -5
fi
golden gens-stream-stat $SM stat $GS/stack_map_stat
if [ "$tag" = build ] && command -v trace-cmd >/dev/null 2>&1; then
	# the plugin: every definition and id record followed by its frames; its text read back
	# gives the trace.dat's stacks
	TRACEEVENT_PLUGIN_DIR=$B trace-cmd report -i "$GW/alone.dat" >"$GW/tc" 2>"$GW/tcerr"
	plugin_frames plugin-gens-stream "$GW/tc" "$GW/tcerr" "" 144 718
	$SM report --folded "$GW/tc" >"$GW/tc.folded" 2>&1
	if cmp -s "$GW/tc.folded" "$GW/alone.folded"; then ok gens-stream-trace-cmd-text-equals-dat; else
		ko gens-stream-trace-cmd-text-equals-dat
		diff "$GW/alone.folded" "$GW/tc.folded" | head -5
	fi
fi
# (b) the flight recording: every reference from the map, those of switch 0 from the retired
# map, those of switch 1 from the map in use; dump prints the kernel's own stack_map text
golden gens-flight-report $SM report --top 2 $GF
$SM report --top 100000 $GF >"$GW/fall" 2>&1
golden gens-flight-switches by_switch "$GW/fall"
$SM export --format folded $GF >"$GW/ffolded" 2>"$GW/ffolded.err"
if [ "$(refs <"$GW/ffolded")" = 180 ] && ! grep -q unknown "$GW/ffolded" && [ ! -s "$GW/ffolded.err" ]; then
	ok gens-flight-export-refs
else
	ko "gens-flight-export-refs ($(refs <"$GW/ffolded") references)"
fi
$SM dump $GF >"$GW/dump" 2>&1
if cmp -s "$GW/dump" $GF/stack_map; then ok gens-flight-dump-is-stack_map; else
	ko gens-flight-dump-is-stack_map
	diff $GF/stack_map "$GW/dump" | head -5
fi
golden gens-flight-stat $SM stat --map $GF/stack_map_bin $GF/stack_map_stat
# the map in use alone (the retired map's records cut out): exactly the 135 references of
# switch 0 are unresolved, said once; the retired map alone: exactly the 45 of switch 1
for m in inuse-only:262144:4294967295 retired-only:0:262143; do
	n=${m%%:*}
	r=${m#*:}
	mkdir -p "$GW/$n"
	cp $GF/trace $GF/stack_map_stat $GF/kallsyms "$GW/$n/"
	python3 tests/datfix.py mapcut $GF/stack_map_bin "$GW/$n/stack_map_bin" "${r%:*}" "${r#*:}"
	golden "gens-flight-$n-report" $SM report --top 1 "$GW/$n"
	$SM report --top 100000 "$GW/$n" >"$GW/$n.all" 2>/dev/null
	golden "gens-flight-$n-switches" by_switch "$GW/$n.all"
done

# --- the reader on a thread of its own (src/evpipe.c): every command gives exactly the answer,
# the files, the messages and the exit status of the direct call (STACKMAP_THREADS=1), on one
# batch and on many, after a reader's error in the middle of the input (a truncated page) and
# after a consumer's (a Perfetto trace into a full device) --------------------------------
python3 tests/datfix.py replicate $D/trace.dat "$W/pipe.dat" 60
cp $D/stack_map_bin "$W/stack_map_bin"
sz=$(stat -c %s "$W/pipe.dat")
head -c $((sz - 3000)) "$W/pipe.dat" >"$W/pipe-cut.dat"
python3 tests/datfix.py badpage "$W/pipe.dat" "$W/pipe-bad.dat" 0
pipe_same() { # NAME CMD... (an output file, if any, is $W/pipe-file)
	name=$1
	shift
	for t in 1 2; do
		env STACKMAP_THREADS=$t "$@" >"$W/pipe-out$t" 2>"$W/pipe-err$t"
		echo "exit $?" >>"$W/pipe-err$t"
		rm -f "$W/pipe-file$t"
		[ -f "$W/pipe-file" ] && mv "$W/pipe-file" "$W/pipe-file$t"
	done
	same=1
	cmp -s "$W/pipe-out1" "$W/pipe-out2" || same=0
	cmp -s "$W/pipe-err1" "$W/pipe-err2" || same=0
	if [ -f "$W/pipe-file1" ] || [ -f "$W/pipe-file2" ]; then
		cmp -s "$W/pipe-file1" "$W/pipe-file2" || same=0
	fi
	# and something to compare: output, a file, or a failure
	if [ ! -s "$W/pipe-out1" ] && [ ! -s "$W/pipe-file1" ] && grep -q 'exit 0' "$W/pipe-err1"; then
		same=0
	fi
	if [ $same = 1 ]; then
		ok "pipe-$name"
	else
		ko "pipe-$name"
		diff "$W/pipe-out1" "$W/pipe-out2" | head -5
		diff "$W/pipe-err1" "$W/pipe-err2" | head -5
	fi
}
for in in dat:$D/trace.dat many:"$W/pipe.dat" cut:"$W/pipe-cut.dat" unknown:"$W/unk.dat" \
	bad:"$W/pipe-bad.dat" missed:"$W/missed.dat" text:tests/fixtures/trace-report.txt \
	text-bad:tests/fixtures/trace.txt defs-dat:tests/fixtures/defs/trace.dat \
	defs-text:tests/fixtures/trace-defs.txt defs-lost:"$W/defs-drop" defs-gens:"$W/gens" \
	defs-wrap:tests/fixtures/trace-defs-wrap.txt \
	inst:tests/fixtures/inst/trace.dat gens-stream:$GS/trace.dat gens-flight:$GF \
	gens-inuse-only:"$GW/inuse-only"; do
	f=${in#*:}
	pipe_same "report-${in%%:*}" $SM report $K --top 5 "$f"
	pipe_same "folded-${in%%:*}" $SM export $K --format folded "$f"
	pipe_same "perfetto-${in%%:*}" $SM export $K --format perfetto -o "$W/pipe-file" "$f"
	pipe_same "pprof-${in%%:*}" $SM export $K --format pprof -o "$W/pipe-file" "$f"
done
pipe_same report-lost $SM report $K --top 1 --map "$W/basic.bin" "$W/lost.txt"
pipe_same report-stdin sh -c "$SM report --top 3 - <\"$W/pipe.dat\""
pipe_same diff $SM diff $K "$W/pipe.dat" "$W/unk.dat"
pipe_same perfetto-full-device $SM export $K --format perfetto -o /dev/full "$W/pipe.dat"
grep -q 'exit [1-9]' "$W/pipe-err1" && ok pipe-full-device-fails || ko pipe-full-device-fails
# the bad page fails the reader after thousands of records were delivered: the same message
STACKMAP_THREADS=2 $SM report "$W/pipe-bad.dat" >/dev/null 2>"$W/pipe-bad-err"
if grep -q 'offset [0-9]*: CPU 0: page commit' "$W/pipe-bad-err"; then ok pipe-bad-page-named; else
	ko pipe-bad-page-named
	cat "$W/pipe-bad-err"
fi

# --- fuzz corpus replay (plain main) ------------------------------------------------------
for t in smbin:bin trace:trace export:trace tracedat:dat input:input; do
	if "$B/replay_${t%%:*}" fuzz/corpus/${t#*:}/* >"$W/out" 2>&1; then
		ok "corpus-replay-${t%%:*}"
	else
		ko "corpus-replay-${t%%:*}"
		tail -5 "$W/out"
	fi
done

# --- sources are clang-formatted (skipped when clang-format is not installed) -------------
if command -v clang-format-14 >/dev/null 2>&1 || command -v clang-format >/dev/null 2>&1; then
	if make -s format-check >"$W/out" 2>&1; then ok clang-format; else ko clang-format; fi
fi

echo "$pass $fail" >>"$RESULTS"
