#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_speedscope.py FILE TOTAL: FILE has the required fields of speedscope's file format
(https://www.speedscope.app/file-format-schema.json: $schema, shared.frames[].name,
profiles[] of type "sampled" with name, unit, startValue, endValue, samples and weights of the
same length, frame indexes in range) and its weights sum to TOTAL. One line; exit 1 on error."""
import json
import sys

SCHEMA = "https://www.speedscope.app/file-format-schema.json"
UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}


def fail(msg):
    print("speedscope: " + msg)
    sys.exit(1)


d = json.load(open(sys.argv[1]))
if d.get("$schema") != SCHEMA:
    fail("$schema is %r" % d.get("$schema"))
frames = d.get("shared", {}).get("frames")
if not isinstance(frames, list) or not all(isinstance(f.get("name"), str) for f in frames):
    fail("shared.frames must be a list of objects with a name")
profiles = d.get("profiles")
if not isinstance(profiles, list) or not profiles:
    fail("no profiles")
total = 0
for p in profiles:
    for k in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
        if k not in p:
            fail("profile %r has no %s" % (p.get("name"), k))
    if p["type"] != "sampled" or p["unit"] not in UNITS:
        fail("profile %r: type %r unit %r" % (p["name"], p["type"], p["unit"]))
    if len(p["samples"]) != len(p["weights"]):
        fail("profile %r: %d samples, %d weights" % (p["name"], len(p["samples"]), len(p["weights"])))
    for s in p["samples"]:
        if not s or not all(isinstance(i, int) and 0 <= i < len(frames) for i in s):
            fail("profile %r: bad frame index in %r" % (p["name"], s))
    w = sum(p["weights"])
    if p["endValue"] - p["startValue"] != w:
        fail("profile %r: endValue - startValue %d != weights %d" % (p["name"], p["endValue"] - p["startValue"], w))
    total += w
if total != int(sys.argv[2]):
    fail("total %d, expected %s" % (total, sys.argv[2]))
print("speedscope ok: %d profiles, %d frames, total %d" % (len(profiles), len(frames), total))
