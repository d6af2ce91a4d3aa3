# SPDX-License-Identifier: GPL-2.0
# Sourced by the boot tests (run by bash in the guest, in /host).
T=/sys/kernel/tracing
# The guest programs scripts/test built for this guest's architecture.
G=/src/build/guest
case $(uname -m) in aarch64) G=/src/build/guest-arm64 ;; i?86) G=/src/build/guest-i386 ;; esac
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS"; exit 0; }

# check_memory BITS: the memory: line of stack_map_stat must be the formula of
# Documentation/trace/ftrace-stackmap.rst ("Memory"), 64-bit, for the possible CPUs of this
# boot: 152 * 2^bits + N * (8 * S + 64), S the largest power of two <= 2^bits / (2 * N), >= 32.
check_memory() {
	local bits=$1 cap n s want got possible
	possible=$(cat /sys/devices/system/cpu/possible)
	n=$(( ${possible##*-} + 1 ))
	cap=$(( 1 << bits ))
	s=32
	while [ $(( s * 2 )) -le $(( cap / (2 * n) )) ]; do s=$(( s * 2 )); done
	want=$(( 152 * cap + n * (8 * s + 64) ))
	got=$(sed -n 's/^memory: *\([0-9]*\) bytes$/\1/p' $T/stack_map_stat)
	echo "memory: $got bytes, formula $want (bits $bits, $n possible CPUs, $s cache slots each)"
	[ "$got" = "$want" ] || fail "memory line $got is not the documented formula's $want"
}
