#!/usr/bin/env python3
"""Makes the large masks the streaming render is measured and tested with.

    scripts/make-big-masks.py DIR [SIZE ...]

writes into DIR:
  bomb-16384.png        a 1-bit 16384² mask of a few large shapes (about 50 KB)
  white-16384.png       a 1-bit all-white 16384² mask
  mask-WxH.png          an anti-aliased grey mask of shapes for each SIZE given as
                        WxH (default 1920x1080 3840x2160 7680x4320 16384x16384)
Needs Pillow.
"""
import os
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


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    sizes = sys.argv[2:] or ["1920x1080", "3840x2160", "7680x4320", "16384x16384"]
    bomb = Image.new("1", (16384, 16384), 0)
    shapes(ImageDraw.Draw(bomb), 16384, 16384, 1)
    bomb.save(os.path.join(out, "bomb-16384.png"), optimize=True)
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
