#!/bin/sh
# Sum the "PASSED FAILED" lines of a results file and print the one summary line.
awk '{ p += $1; f += $2 } END { printf "%d passed, %d failed\n", p, f; exit (f > 0 || NR == 0) }' "$1"
