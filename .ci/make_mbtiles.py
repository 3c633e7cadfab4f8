#!/usr/bin/env python3
"""A tiny raster MBTiles file for the console's browser check: every tile of zooms 0 to 3, each a solid colour
that names it (tile_color), stored as the MBTiles spec says (rows counted from the south, TMS), so the check can
tell that the console drew the right tile in the right place. Python's sqlite3 and zlib only.

Usage: make_mbtiles.py OUT.mbtiles
"""
import sqlite3
import struct
import sys
import zlib

MAX_ZOOM = 3


def tile_color(z, x, y):
    """The RGB colour of XYZ tile z/x/y (y counted from the north, as web maps ask for tiles): unique per tile,
    and pale, close to the console's own background, so screenshots made in the same run look plain."""
    return (228 + 3 * z, 220 + 3 * x, 220 + 3 * y)


def png(color, size=256):
    """A solid size × size RGB PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(color) * size
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * size, 9)) + chunk(b"IEND", b""))


def main():
    out = sys.argv[1]
    db = sqlite3.connect(out)
    db.executescript("""
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
    """)
    db.executemany("INSERT INTO metadata VALUES (?, ?)", [
        ("name", "console check"), ("format", "png"), ("minzoom", "0"), ("maxzoom", str(MAX_ZOOM)),
        ("attribution", "CI test tiles"), ("bounds", "-180,-85.0511,180,85.0511"),
    ])
    for z in range(MAX_ZOOM + 1):
        side = 2 ** z
        for x in range(side):
            for y in range(side):
                db.execute("INSERT INTO tiles VALUES (?, ?, ?, ?)", (z, x, side - 1 - y, png(tile_color(z, x, y))))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
