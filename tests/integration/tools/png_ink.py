#!/usr/bin/env python3
"""png_ink.py PNG - print the share (in %) of pixels that are not near-white
or near-greyscale background, i.e. the coloured ink of a rendered flame
graph. Decodes 8-bit RGB/RGBA PNGs (what Chromium writes) with zlib only."""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype = hdr[:4]
    if depth != 8 or ctype not in (2, 6):
        raise SystemExit("unsupported PNG type")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    for y in range(height):
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
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        prev = line
        yield width, bpp, line


ink = total = 0
for width, bpp, line in rows(sys.argv[1]):
    for x in range(width):
        r, g, b = line[x * bpp:x * bpp + 3]
        total += 1
        if max(r, g, b) - min(r, g, b) > 90:   # saturated: a frame, not background
            ink += 1
print(f"{100.0 * ink / total:.1f}")
