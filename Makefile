# SPDX-License-Identifier: GPL-2.0
# Top-level entry points; see README.md.

.PHONY: all demo test kernel vm tool harness bench retention clean help

help:
	@echo "make demo    - build everything missing, boot the VM, record a workload, summarize it"
	@echo "make test    - the whole test run (user-space tests, kernel build, VM tests)"
	@echo "make kernel  - assemble the series into build/linux and build the bzImage"
	@echo "make tool    - build the stackmap command-line tool"
	@echo "make bench   - user-space benchmark of the map against the baseline designs"
	@echo "make retention - events and time span kept by a fixed buffer: no stacks, full stacks, ids (VM)"

kernel:
	scripts/kernel build

tool:
	$(MAKE) -C tool

harness:
	$(MAKE) -C harness

test:
	scripts/test

demo:
	scripts/demo

bench:
	$(MAKE) -C harness bench

retention:
	bench/retention/run.sh

clean:
	rm -rf build/obj build/vm build/test-logs build/share-* build/guest
	-$(MAKE) -C tool clean
	-$(MAKE) -C harness clean
