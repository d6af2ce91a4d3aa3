#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-all.sh SEED ROUNDS SIZE_KB...: the retention benchmark inside the VM (run by run.sh).
# For each per-CPU buffer size, records the same seeded workload once per mode: no stacks
# (none), full stacks (full), stack ids (ids), and with MODES="none full ids defs" also stack
# ids with definitions (defs); results go to /host/<size>/<mode>/, one progress line per
# recording to /host/progress (the host shows it while the VM runs).
set -eu
seed=$1 rounds=$2
shift 2
here=$(dirname "$0")
modes=${MODES:-none full ids}
n=0 total=$(($# * $(echo $modes | wc -w)))
uname -r >/host/uname
echo "booted" >>/host/progress
for kb in "$@"; do
	for mode in $modes; do
		n=$((n + 1))
		"$here/guest-run.sh" "$mode" "$kb" "$seed" "$rounds" "/host/$kb/$mode"
		{
			printf '[%d/%d] %5s KiB per CPU, %-4s: ' $n $total "$kb" "$mode"
			sed 's/.*elapsed_ns \([0-9]*\).*/\1/' "/host/$kb/$mode/workload.log" |
				awk '{ printf "workload %.2f s", $1 / 1e9 }'
			awk '/^overrun:/ { o += $2 } END { printf ", overrun %d entries\n", o }' \
				"/host/$kb/$mode"/stats.cpu*
		} | tee -a /host/progress
	done
done
