# SPDX-License-Identifier: GPL-2.0
# Top-level entry points; see README.md.

.PHONY: all demo bench-kernel test test-mainline test-kcsan test-paths test-arm64 test-i386 setup-i386 test-upstream test-nostackmap test-tcg test-stress kernel vm tool harness bench retention clean help setup setup-arm64 check-series format-patch

help:
	@echo "make demo    - build everything missing, boot the VM, record a workload, summarize it"
	@echo "make test    - the whole test run (user-space tests, kernel builds, VM tests, debug kernel)"
	@echo "make test-mainline - the kernel part of make test on mainline Linux 7.3 (kernel/patches-7.3)"
	@echo "make test-kcsan - the KCSAN kernel: KUnit, random file operations, export stress"
	@echo "make test-paths - the paths kernel (probes, latency tracers, timerlat): the stackmap ftracetest cases (KVER=7.3: on mainline)"
	@echo "make test-arm64 - the arm64 kernel (cross-built, qemu-system-aarch64): KUnit, ftracetest, binary export"
	@echo "make test-i386 - the 32-bit x86 kernel (qemu-system-i386): KUnit, ftracetest, binary export"
	@echo "make test-upstream - the whole upstream ftracetest on the patched and the unpatched kernel (upstream.config), compared; then test-nostackmap (KVER=7.3: on mainline, without test-nostackmap)"
	@echo "make test-nostackmap - CONFIG_FTRACE_STACKMAP=n: tracefs and a workload's trace as the unpatched kernel's"
	@echo "make test-stress - the pairs tests on the debug kernel for 600 s each, then past 8192 switches (STRESS_SECONDS=N, STRESS_WRAP_SECONDS=N, 0: no wrap; STRESS_KCSAN=1: the KCSAN kernel; KVER=7.3: mainline)"
	@echo "make test-tcg - code patching under multi- and single-threaded TCG on the unpatched kernel: why the debug boots hold every tracepoint"
	@echo "make all     - the tool, the harness and the kernel"
	@echo "make kernel  - assemble the series into build/linux and build the bzImage (KVER=7.3: mainline)"
	@echo "make vm      - the VM's initramfs (build/vm), which every boot builds when missing"
	@echo "make check-series - every patch built and checked as the maintainers' robot does (KVER=7.3: mainline)"
	@echo "make format-patch - the series as it would be mailed, with its cover letter (KVER=7.3: mainline)"
	@echo "make tool    - build the stackmap command-line tool"
	@echo "make bench   - user-space benchmark of the map against the baseline designs"
	@echo "make bench-kernel - what the stackmap option costs an event in the kernel: time and instructions (VM)"
	@echo "make retention - events and time span kept by a fixed buffer: no stacks, full stacks, ids (VM)"

all: tool harness kernel

# The kernel of kernel, check-series, format-patch, test-paths and test-upstream: KVER=7.3
# is mainline (scripts/setup --mainline installs its source).
KVER ?= 6.12
MAINLINE = @[ "$(KVER)" = 6.12 ] || scripts/setup --mainline

kernel: setup
	$(MAINLINE)
	scripts/kernel --kver $(KVER) build

vm: setup
	scripts/vm initramfs

# docs/KERNEL.md says what each check is; the arm64 build needs scripts/setup --arch arm64.
check-series: setup-arm64
	$(MAINLINE)
	scripts/kernel --kver $(KVER) check-series

format-patch: setup
	$(MAINLINE)
	scripts/kernel --kver $(KVER) format-patch

tool:
	$(MAKE) -C tool

harness:
	$(MAKE) -C harness

# Both entry points install missing packages first (scripts/setup is idempotent and says
# what it installs), so that they work as the first command on a fresh machine.
setup:
	@scripts/setup

setup-arm64:
	@scripts/setup --arch arm64

setup-i386:
	@scripts/setup --arch i386

test: setup
	scripts/test

test-kcsan: setup
	scripts/test --kcsan

# Not part of `make test` (two more kernel builds, past CI's time limit): docs/TESTING.md.
test-mainline: setup
	@scripts/setup --mainline
	scripts/test --kver 7.3

# Not part of `make test` (one more kernel build, past CI's time limit): docs/TESTING.md.
test-paths: setup
	$(MAINLINE)
	scripts/test --paths --kver $(KVER)

test-arm64: setup-arm64
	scripts/test --arch arm64

test-i386: setup-i386
	scripts/test --arch i386

# Not part of `make test` (too long for CI): see README.md.
test-upstream: setup
	$(MAINLINE)
	tests/upstream/run.sh --kver $(KVER); rc=$$?; [ "$(KVER)" != 6.12 ] || tests/nostackmap/run.sh && exit $$rc

test-nostackmap: setup
	tests/nostackmap/run.sh

# Not part of `make test`, which runs its short form in the debug kernel's boot:
# docs/RELIABILITY.md, "Every id against the stack recorded beside it".
STRESS_SECONDS ?= 600
STRESS_WRAP_SECONDS ?= 3600
test-stress: setup
	$(MAINLINE)
	tests/stress/run.sh --kver $(KVER) --seconds $(STRESS_SECONDS) \
		--wrap-seconds $(STRESS_WRAP_SECONDS) $(if $(STRESS_KCSAN),--kcsan)

# Not part of `make test` (it Oopses kernels on purpose): docs/RELIABILITY.md.
test-tcg: setup
	tests/tcg/run.sh

demo: setup
	scripts/demo

bench:
	$(MAKE) -C harness bench

retention:
	bench/retention/run.sh

# Run it alone on the machine: docs/KERNEL-COST.md.
bench-kernel: setup
	bench/kernel/run.sh

# Everything the build made: build/ (kernel trees, objects, the VM, logs), the tool's and
# the harness's objects.
clean:
	rm -rf build
	-$(MAKE) -C tool clean
	-$(MAKE) -C harness clean
