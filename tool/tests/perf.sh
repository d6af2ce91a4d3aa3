#!/bin/sh
# Benchmark: decode and symbolise a 256K-stack map against a 200K-symbol kallsyms.
# Usage: tests/perf.sh [BUILD_DIR]   (uses hyperfine when installed, else time)
B=${1:-build}
W=$(mktemp -d /tmp/stackmap-perf.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$B/mkbin" random "$W/map.bin" "$W/kallsyms" 262144 200000 1 || exit 1
echo "input: $(wc -l <"$W/kallsyms") symbols, 262144 stacks, $(wc -c <"$W/map.bin") bytes"
CMD="$B/stackmap dump --kallsyms $W/kallsyms $W/map.bin"
"$B/stackmap" dump --kallsyms "$W/kallsyms" "$W/map.bin" | tail -n 3
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 1 --runs 5 --output=null "$CMD" \
		"$B/stackmap dump --kallsyms $W/kallsyms --folded $W/map.bin" \
		"$B/stackmap dump --kallsyms $W/kallsyms --json $W/map.bin"
else
	time $CMD >/dev/null
fi
