# SPDX-License-Identifier: GPL-2.0
# description: stack_map_bin: format, equality with the text export, read sizes, ESTALE, EOF, open-time set, EACCES, stress
# append:
. /src/tests/boot/lib.sh
B=$G/smbin_test
$B check || fail "smbin_test check"
$B stress 20 || fail "smbin_test stress"
pass
