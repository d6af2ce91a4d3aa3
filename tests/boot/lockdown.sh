# SPDX-License-Identifier: GPL-2.0
# description: lockdown confidentiality raised at run time: the stackmap exports cannot be opened (EPERM)
# append:
# (Booting with lockdown=confidentiality would not create tracefs files at all; raising the
# level at run time is what exercises the open-time check.)
. /src/tests/boot/lib.sh
echo 1 > $T/options/stackmap
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo confidentiality > /sys/kernel/security/lockdown || fail "cannot raise lockdown"
grep -q '\[confidentiality\]' /sys/kernel/security/lockdown || fail "kernel is not in confidentiality lockdown"
$G/smbin_test lockdown || fail "smbin_test lockdown"
pass
