# SPDX-License-Identifier: GPL-2.0
# Checks of a kernel boot log (dmesg), sourced by scripts/test on the host and by
# tests/debug/run.sh in the guest. Each prints one line and returns 0 when the check holds.

# The ftrace start-up self-tests: at least 5 passed and none failed.
bootlog_selftests() { # dmesg-file
	local np nf
	np=$(grep -c 'Testing .*PASSED' "$1")
	nf=$(grep -c -E 'Testing .*FAILED|selftest.*fail' "$1")
	echo "ftrace start-up self-tests: $np passed, $nf failed"
	[ "$np" -ge 5 ] && [ "$nf" -eq 0 ]
}

# The KUnit suite ftrace_stackmap reported ok, and no KUnit case failed.
bootlog_kunit() { # dmesg-file
	if grep -q '^\[ *[0-9.]*\] ok [0-9]* ftrace_stackmap$' "$1" && ! grep -q 'not ok' "$1"; then
		echo "KUnit ftrace_stackmap: $(grep -o '# ftrace_stackmap: .*' "$1" | head -n 1)"
		return 0
	fi
	echo "KUnit ftrace_stackmap did not pass"
	grep -E 'ok [0-9]|# ' "$1" | head -n 30
	return 1
}
