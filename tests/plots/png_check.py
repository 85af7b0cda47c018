#!/usr/bin/python3
"""png_check.py PNG [#rrggbb ...]: fail unless the PNG (a headless Chromium
screenshot of a plot) is not blank: more than a few distinct colours, a
share of non-white pixels between 1% and 90%, and at least 10 pixels
within 8 levels of each colour given (the plot's marks, so that an error
page or an empty frame does not pass).  Decodes 8-bit RGB/RGBA PNGs with
zlib and numpy (PIL is not installed)."""
import struct
import sys
import zlib

import numpy as np


def read_png(path):
    """The image as an (h, w, 3) uint8 array."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    img = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        row_start = y * (stride + 1)
        ftype = raw[row_start]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=row_start + 1).astype(np.int32)
        if ftype == 0:
            cur = line
        elif ftype == 2:
            cur = (line + prev) & 0xFF
        else:
            # Sub, Average and Paeth depend on the left neighbour: byte by byte
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                if ftype == 1:
                    p = a
                elif ftype == 3:
                    p = (a + b) >> 1
                elif ftype == 4:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                else:
                    raise SystemExit(f"{path}: bad filter type {ftype}")
                cur[x] = (line[x] + p) & 0xFF
        img[y] = cur
        prev = cur
    return img.reshape(height, width, channels)[:, :, :3]


def main():
    path = sys.argv[1]
    img = read_png(path)
    h, w, _ = img.shape
    flat = img.reshape(-1, 3).astype(np.int32)
    distinct = len(np.unique(flat[:, 0] << 16 | flat[:, 1] << 8 | flat[:, 2]))
    non_white = float(np.mean(np.any(flat < 250, axis=1)))
    print(f"{path}: {w}x{h}, {distinct} distinct colours, {100 * non_white:.1f}% non-white pixels")
    ok = True
    if distinct < 4:
        print(f"  FAIL: only {distinct} distinct colours")
        ok = False
    if not 0.01 <= non_white <= 0.90:
        print(f"  FAIL: {100 * non_white:.1f}% non-white pixels is outside 1% .. 90%")
        ok = False
    for hexcolour in sys.argv[2:]:
        want = np.array([int(hexcolour[i:i + 2], 16) for i in (1, 3, 5)])
        hits = int(np.sum(np.all(np.abs(flat - want) <= 8, axis=1)))
        print(f"  {hexcolour}: {hits} pixels")
        if hits < 10:
            print(f"  FAIL: the plot's colour {hexcolour} is missing")
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
