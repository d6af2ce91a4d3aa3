#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/lib/vm-cpus.py [--after SEC] SOCKET [SYSTEM_MAP]: where each vCPU of a QEMU is.

scripts/vm starts it with the VM and --after (timeout - 10), and kills it when the VM ends
first. After SEC seconds it asks QEMU's human monitor on the Unix
SOCKET for every vCPU's registers ("info registers -a", twice, half a second apart) and
prints one line per vCPU and sample, "vm: cpu N: PC=ADDR symbol+off" (symbol from
SYSTEM_MAP, the kernel's System.map). A guest that froze with no console output (every
vCPU spinning with interrupts off) shows here what no guest-side dump can. Exits 0; a
monitor that does not answer is said in one line."""
import bisect
import re
import socket
import sys
import time


def ask(sock, cmd, quiet=0.5, limit=5.0):
    """Send one monitor command; return what came until QEMU stayed quiet."""
    sock.sendall(cmd.encode() + b"\n")
    out, end = b"", time.time() + limit
    sock.settimeout(quiet)
    while time.time() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            if out:
                break
            continue
        if not chunk:
            break
        out += chunk
    return out.decode(errors="replace")


def load_map(path):
    """The text symbols of System.map, which lists them by address already."""
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[1] in "tTwW":
                    addrs.append(int(w[0], 16))
                    names.append(w[2])
    except OSError:
        pass
    return addrs, names


def main():
    args = sys.argv[1:]
    if args[:1] == ["--after"]:
        time.sleep(float(args[1]))
        args = args[2:]
    addrs, names = load_map(args[1]) if len(args) > 1 else ([], [])

    def sym(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return "%s+0x%x" % (names[i], pc - addrs[i]) if i >= 0 else "?"
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(args[0])
        ask(sock, "")  # the banner
        for sample in range(2):
            regs = ask(sock, "info registers -a")
            # x86_64 RIP=, i386 EIP=, arm64 PC=; one "CPU#N" header per vCPU.
            for cpu, body in re.findall(r"CPU#(\d+)(.*?)(?=CPU#\d+|\Z)", regs, re.S):
                m = re.search(r"\b(?:RIP|EIP|PC)=([0-9a-fA-F]+)", body)
                if m:
                    pc = int(m.group(1), 16)
                    print("vm: cpu %s: PC=%x %s" % (cpu, pc, sym(pc)))
            time.sleep(0.5)
    except OSError as e:
        print("vm: no answer from the QEMU monitor at %s (%s)" % (args[0], e))


main()
