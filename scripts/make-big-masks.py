#!/usr/bin/env python3
"""Makes the large masks the streaming render is measured and tested with.

    scripts/make-big-masks.py DIR [SIZE ...]

writes into DIR:
  bomb-16384.png        a 1-bit 16384² mask of a few large shapes (about 50 KB)
  white-16384.png       a 1-bit all-white 16384² mask
  huge-glyph.ttf        a TrueType font of about 400 bytes, unitsPerEm 16, whose
                        'A' is a 10900-unit square: 16350 px at --size 24
  mask-WxH.png          an anti-aliased grey mask of shapes for each SIZE given as
                        WxH (default 1920x1080 3840x2160 7680x4320 16384x16384)
Needs Pillow.
"""
import os
import struct
import sys

from PIL import Image, ImageDraw


def shapes(draw, w, h, fill):
    # Discs, rings and bars over most of the canvas, as a large title's strokes would be.
    s = min(w, h)
    for i in range(6):
        cx, cy, r = w * (i + 1) // 7, h // 2, s // 8
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
        draw.ellipse((cx - r // 2, cy - r // 2, cx + r // 2, cy + r // 2), fill=0)
    draw.rectangle((w // 20, h // 10, w - w // 20, h // 10 + s // 20), fill=fill)
    draw.rectangle((w // 20, h - h // 10 - s // 20, w - w // 20, h - h // 10), fill=fill)


def huge_glyph_font():
    """A minimal TrueType font: .notdef and 'A', a square of 10900 units, at unitsPerEm 16."""
    side = 10900
    head = struct.pack(">IIIIHHqqhhhhHHhhh", 0x00010000, 0x00010000, 0, 0x5F0F3CF5, 0, 16, 0, 0,
                       0, 0, side, side, 0, 8, 2, 0, 0)
    hhea = struct.pack(">IhhhHhhhhhhhhhhhH", 0x00010000, side, 0, 0, side, 0, 0, side, 1, 0, 0,
                       0, 0, 0, 0, 0, 2)
    maxp = struct.pack(">IHHHHHHHHHHHHHH", 0x00010000, 2, 4, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0)
    hmtx = struct.pack(">HhHh", 8, 0, side, 0)
    glyph = struct.pack(">hhhhhHH", 1, 0, 0, side, side, 3, 0) + bytes([1, 1, 1, 1]) \
        + struct.pack(">hhhh", 0, 0, side, 0) + struct.pack(">hhhh", 0, side, 0, -side)
    loca = struct.pack(">HHH", 0, 0, len(glyph) // 2)
    subtable = struct.pack(">HHHHHHHHHHHHHHHH", 4, 32, 0, 4, 4, 1, 0, 0x41, 0xFFFF, 0, 0x41, 0xFFFF,
                           (1 - 0x41) & 0xFFFF, 1, 0, 0)
    cmap = struct.pack(">HHHHI", 0, 1, 3, 1, 12) + subtable
    tables = sorted({b"cmap": cmap, b"glyf": glyph, b"head": head, b"hhea": hhea, b"hmtx": hmtx,
                     b"loca": loca, b"maxp": maxp}.items())

    def checksum(data):
        data += b"\0" * (-len(data) % 4)
        return sum(struct.unpack(">%dI" % (len(data) // 4), data)) & 0xFFFFFFFF

    out = struct.pack(">IHHHH", 0x00010000, len(tables), 64, 2, len(tables) * 16 - 64)
    offset = 12 + 16 * len(tables)
    body = b""
    for tag, data in tables:
        out += struct.pack(">4sIII", tag, checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    return out + body


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    sizes = sys.argv[2:] or ["1920x1080", "3840x2160", "7680x4320", "16384x16384"]
    bomb = Image.new("1", (16384, 16384), 0)
    shapes(ImageDraw.Draw(bomb), 16384, 16384, 1)
    bomb.save(os.path.join(out, "bomb-16384.png"), optimize=True)
    with open(os.path.join(out, "huge-glyph.ttf"), "wb") as f:
        f.write(huge_glyph_font())
    Image.new("1", (16384, 16384), 1).save(os.path.join(out, "white-16384.png"), optimize=True)
    for size in sizes:
        w, h = (int(v) for v in size.split("x"))
        # Drawn at 4× and reduced: anti-aliased edges, as a real mask has.
        big = Image.new("L", (w * 2, h * 2), 0) if w * h <= 8_000_000 else Image.new("L", (w, h), 0)
        shapes(ImageDraw.Draw(big), big.width, big.height, 255)
        big.resize((w, h), Image.BOX).save(os.path.join(out, f"mask-{w}x{h}.png"))
        print(f"mask-{w}x{h}.png")


if __name__ == "__main__":
    main()
