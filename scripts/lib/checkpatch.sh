# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# checkpatch --strict on one commit, and the reasons kernel/checkpatch-allowed.txt gives for
# the findings the series keeps; sourced by scripts/lib/check-series.sh and
# scripts/lib/format-patch.sh.

# The findings of COMMIT in TREE, one per line: "TYPE:NAME: message" (checkpatch's --terse
# --show-types line without its "commit:line: " prefix).
cp_findings() { # tree commit
	(cd "$1" && ./scripts/checkpatch.pl -q --strict --terse --show-types -g "$2" 2>/dev/null) |
		grep -E '^[0-9a-f]+:[0-9]+: (ERROR|WARNING|CHECK):' | sed -E 's/^[0-9a-f]+:[0-9]+: //'
}

# The reason kernel/checkpatch-allowed.txt gives for FINDING in the commit titled SUBJECT;
# status 1 when no line allows it.
cp_reason() { # subject finding
	local s m why
	while IFS=$'\t' read -r s m why; do
		case $s in "" | \#*) continue ;; esac
		if [[ $1 =~ $s ]] && [[ $2 =~ $m ]]; then
			echo "$why"
			return 0
		fi
	done <"$ROOT/kernel/checkpatch-allowed.txt"
	return 1
}
