#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/recording/run.sh: binary recordings end to end. One VM boot records a workload with
# `stackmap record` (flight recorder with the text trace too, a wrapped 16 KB buffer,
# streaming with a 32 KB buffer) and with Debian's `trace-cmd record` (the host's binary and
# its libraries, copied into the share folder and started through the dynamic loader), and
# both again as a user records with definitions (16 KB buffers, `next` every 50 ms, trace-cmd
# with one instance of ids and one of full stacks of the same events, in streaming and as a
# flight recorder: trace-cmd start, stop, extract, the instance's stack_map_bin saved
# between stop and extract); then
# tests/recording/check.py checks on the host: trace-cmd report with plugin_stackmap prints
# the frames stackmap dump gives for every id event, report on trace.dat == report on the
# text of the same run, own-CPU attribution in the wrapped buffer, the streaming conservation
# law (events on disk + lost reported == events the kernel wrote, per_cpu/*/stats), the
# recordings with definitions resolved alone or their unresolved ids counted with the reason,
# the flight recorder's resolved in full by its stack_map_bin, no wrong stack among the paired
# events of the two instances, and
# KernelShark's library (libkshark) loading the files with the plugin.
#
# KERNEL=path/to/bzImage (default build/obj/arch/x86/boot/bzImage, what scripts/test builds).
# Ends with "N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KERNEL=${KERNEL:-$BUILD/obj/arch/x86/boot/bzImage}
SHARE=$BUILD/recording
TOOL=$ROOT/tool/build

fail_setup() {
	echo "FAIL  $*"
	echo "0 passed, 1 failed"
	exit 1
}

for c in trace-cmd python3 gcc; do
	command -v $c >/dev/null || fail_setup "recording: $c is not installed (scripts/setup)"
done
[ -f "$KERNEL" ] || fail_setup "recording: no kernel $KERNEL (set KERNEL=)"
make -s -C "$ROOT/tool" all static >"$BUILD/recording-build.log" 2>&1 ||
	fail_setup "recording: tool build failed (log $BUILD/recording-build.log)"

rm -rf "$SHARE"
mkdir -p "$SHARE/tc"
# Debian's trace-cmd and the libraries it links, run in the guest through their loader
tc=$(command -v trace-cmd)
cp "$tc" "$SHARE/tc/"
for l in $(ldd "$tc" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
	cp -L "$l" "$SHARE/tc/"
done

kshark=""
if [ -e /usr/lib/x86_64-linux-gnu/libkshark.so.2 ]; then
	gcc -std=c11 -Wall -Wextra -Werror -O1 -o "$SHARE/kshark_check" \
		"$ROOT/tests/recording/kshark_check.c" -l:libkshark.so.2 && kshark=$SHARE/kshark_check
fi

echo "== recording in the VM ($KERNEL)"
"$ROOT/scripts/vm" run --kernel "$KERNEL" --share "$SHARE" --timeout 900 \
	--log "$BUILD/recording-console.log" -- bash /src/tests/recording/guest.sh \
	>"$SHARE/guest.log" 2>&1
rc=$?
sed 's/^/  guest: /' "$SHARE/guest.log"
[ $rc -eq 0 ] || fail_setup "recording: VM run failed (exit $rc, log $BUILD/recording-console.log)"

echo "== checks on the host"
python3 "$ROOT/tests/recording/check.py" "$SHARE" "$TOOL/stackmap" "$TOOL" "$kshark"
