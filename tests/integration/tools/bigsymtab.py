#!/usr/bin/env python3
"""bigsymtab.py OUT N - write a 64-bit ELF file (not runnable, but mappable
and executable as far as its program header says) whose .symtab holds N
sized function symbols "f0000000"..., for measuring what reading a huge
symbol table costs."""
import struct
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    text_off, text_size = 0x1000, 0x1000
    names = bytearray(b"\0")
    syms = bytearray(24 * (n + 1))
    pack = struct.Struct("<IBBHQQ").pack_into
    for i in range(n):
        off = len(names)
        names += b"f%07d\0" % i
        # STB_GLOBAL << 4 | STT_FUNC, section 1 (.text), 16 bytes each
        pack(syms, 24 * (i + 1), off, 0x12, 0, 1, 0x400000 + 16 * i, 16)
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    sym_off = text_off + text_size
    str_off = sym_off + len(syms)
    shstr_off = str_off + len(names)
    sh_off = (shstr_off + len(shstr) + 7) & ~7
    eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 3, 62, 1,
                     0x400000, 64, sh_off, 0, 64, 56, 1, 64, 5, 4)
    ph = struct.pack("<IIQQQQQQ", 1, 5, text_off, 0x400000, 0x400000, text_size, text_size, 0x1000)
    def sh(name, typ, flags, addr, off, size, link, info, align, ent):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info, align, ent)
    shdrs = (sh(0, 0, 0, 0, 0, 0, 0, 0, 0, 0) +
             sh(1, 1, 6, 0x400000, text_off, text_size, 0, 0, 16, 0) +
             sh(7, 2, 0, 0, sym_off, len(syms), 3, 1, 8, 24) +
             sh(15, 3, 0, 0, str_off, len(names), 0, 0, 1, 0) +
             sh(23, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0))
    with open(out, "wb") as f:
        f.write(eh + ph)
        f.seek(text_off)
        f.write(b"\xc3" * text_size)
        f.write(syms)
        f.write(names)
        f.write(shstr)
        f.seek(sh_off)
        f.write(shdrs)


main()
