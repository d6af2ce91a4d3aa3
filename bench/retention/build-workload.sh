#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest workload (static, so it runs in the busybox initramfs) when it is missing or
# older than its source: build/bench/workload, seen in the VM as /src/build/bench/workload.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
src=$ROOT/bench/retention/workload.c bin=$ROOT/build/bench/workload
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
	mkdir -p "$(dirname "$bin")"
	gcc -static -O2 -Wall -Wextra -Werror -o "$bin.tmp" "$src"
	mv "$bin.tmp" "$bin"
fi
