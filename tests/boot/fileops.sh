# SPDX-License-Identifier: GPL-2.0
# description: every file operation on the five stackmap files, map absent/empty/partial/full, tracing off/on, under resets/toggles/instances/resizes; then 30 s of seeded random operations; then 60 s of generation switches in an instance whose every id is checked against the full stack another instance recorded beside it
# append: ftrace_stackmap.bits=10
. /src/tests/boot/lib.sh
B=$G/fileops_test
$B check || fail "fileops_test check"
$B random 1 30 4 || fail "fileops_test random"
# 387 switches in 60 s in the CI run of 2026-12-04: a tenth of that is a recycle gone slow.
$B pairs 2 60 2 40 || fail "fileops_test pairs"
pass
