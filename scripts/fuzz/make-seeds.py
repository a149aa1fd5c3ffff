#!/usr/bin/python3
"""Makes the generated seeds in scripts/fuzz/corpus/ (see README.md there).

Run with Debian's python3 (it needs python3-fonttools, and the fonts of
fonts-dejavu-core and fonts-dosis):  /usr/bin/python3 scripts/fuzz/make-seeds.py

The other seeds are copied files: scene/material-*.json from materials/,
png/fixture-*.png from Tests/MercurialTestSupport/Fixtures/. Rerunning writes the
same bytes (fontTools' subsetter and zlib are deterministic for a given version).
"""
import os
import struct
import zlib

from fontTools import subset
from fontTools.ttLib import TTFont

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")


# --- fonts ---------------------------------------------------------------------

def subset_font(source, text, target, family, layout=True, hinting=True, drop=()):
    """A subset of `source` holding the glyphs of `text`, renamed to `family`
    (a modified font must not keep a reserved font name)."""
    options = subset.Options()
    options.layout_features = ["*"] if layout else []
    options.hinting = hinting
    options.drop_tables += list(drop) + ["FFTM", "MATH"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    font = TTFont(source, recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    name = font["name"]
    postscript = family.replace(" ", "")
    for record in name.names:
        if record.nameID in (1, 4):
            record.string = family
        elif record.nameID == 3:
            record.string = family + " (fuzz seed)"
        elif record.nameID == 6:
            record.string = postscript
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [postscript]
        top = cff.topDictIndex[0]
        top.FullName = family
        top.FamilyName = family
    font.save(target)
    print(target, os.path.getsize(target), "bytes")


text = "Ag fi ✈ لا"
fonts = os.path.join(corpus, "font")
os.makedirs(fonts, exist_ok=True)
# TrueType outlines with hinting programs, GSUB (fi ligature, Arabic joining,
# lam-alef), GPOS (kerning, marks) and GDEF.
subset_font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", text,
            os.path.join(fonts, "truetype-layout.ttf"), "Fuzz Seed Sans")
# The same font's A and g only: no layout tables, no hinting (the smallest seed).
subset_font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "Ag",
            os.path.join(fonts, "truetype-bare.ttf"), "Fuzz Seed Bare", layout=False, hinting=False,
            drop=("GSUB", "GPOS", "GDEF"))
# CFF outlines (an OpenType .otf), with GSUB and GPOS.
subset_font("/usr/share/fonts/opentype/dosis/Dosis-ExtraBold.otf", text,
            os.path.join(fonts, "cff-layout.otf"), "Fuzz Seed Round")


# --- PNGs ----------------------------------------------------------------------

def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(path, width, height, depth, colour, rows, extra=(), interlace=0):
    """`rows`: the raw bytes of each row (without the filter byte)."""
    raw = b"".join(b"\x00" + row for row in rows)
    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))
    for kind, payload in extra:
        data += chunk(kind, payload)
    data += chunk(b"IDAT", zlib.compress(raw, 9))
    data += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)
    print(path, len(data), "bytes")


pngs = os.path.join(corpus, "png")
os.makedirs(pngs, exist_ok=True)

# A 32×32 shading sphere: a lit disc on black, RGB 8-bit, as --shading-image takes.
rows = []
for y in range(32):
    row = bytearray()
    for x in range(32):
        nx, ny = (x + 0.5 - 16) / 16, (16 - y - 0.5) / 16
        if nx * nx + ny * ny > 1:
            row += b"\x00\x00\x00"
        else:
            nz = (1 - nx * nx - ny * ny) ** 0.5
            light = max(0.0, (-0.5 * nx + 0.6 * ny + 0.62 * nz))
            row += bytes([min(255, int(40 + 215 * light)), min(255, int(30 + 180 * light)), int(20 + 60 * light)])
    rows.append(bytes(row))
png(os.path.join(pngs, "sphere-rgb8.png"), 32, 32, 8, 2, rows)

# A 16-bit RGBA mask with gAMA and sRGB chunks (libpng converts gamma on the way to 8 bit).
rows = [b"".join(struct.pack(">HHHH", 65535, 32768, 0, (x * 4369) & 0xFFFF) for x in range(16)) for _ in range(8)]
png(os.path.join(pngs, "gama-rgba16.png"), 16, 8, 16, 6, rows,
    extra=[(b"gAMA", struct.pack(">I", 45455)), (b"sRGB", b"\x00")])

# A 4-bit palette with a tRNS of two entries.
palette = b"\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\xff"
rows = [bytes([(x % 3) << 4 | ((x + 1) % 3) for x in range(4)]) for _ in range(8)]
png(os.path.join(pngs, "palette4-trns.png"), 8, 8, 4, 3, rows,
    extra=[(b"PLTE", palette), (b"tRNS", b"\x00\x80")])

# Grey 8-bit with a tRNS colour key (grey 0 is transparent), so coverage comes from alpha.
rows = [bytes([0 if x < 4 else 200 for x in range(8)]) for _ in range(4)]
png(os.path.join(pngs, "gray8-trns.png"), 8, 4, 8, 0, rows, extra=[(b"tRNS", b"\x00\x00")])
