# SPDX-License-Identifier: GPL-2.0
# Sourced by the boot tests (run by bash in the guest, in /host).
T=/sys/kernel/tracing
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS"; exit 0; }
