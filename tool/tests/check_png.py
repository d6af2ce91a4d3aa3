#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_png.py FILE MIN_PERCENT MIN_COLOURS: the PNG (8-bit RGB or RGBA, as Chromium's
--screenshot writes it) is not empty: at least MIN_PERCENT of its pixels differ from the most
common colour (the background) and it has at least MIN_COLOURS distinct colours. Decoded with
zlib only. One line; exit 1 if the picture is empty."""
import struct
import sys
import zlib
from collections import Counter

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("png: not a PNG file")
    sys.exit(1)
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
if depth != 8 or ctype not in (2, 6) or interlace:
    print("png: unsupported format depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    sys.exit(1)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = Counter()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    prev = line
bg, nbg = colours.most_common(1)[0]
share = 100.0 * (w * h - nbg) / (w * h)
msg = "png %dx%d: %.1f%% non-background pixels, %d colours" % (w, h, share, len(colours))
print(msg)
sys.exit(0 if share >= float(sys.argv[2]) and len(colours) >= int(sys.argv[3]) else 1)
