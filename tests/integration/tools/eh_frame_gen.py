#!/usr/bin/env python3
"""eh_frame_gen.py - .eh_frame sections a hostile user crafts, for a
section placed at address 0 (FDE pointers absolute, DW_EH_PE_udata4):

  eh_frame_gen.py rows OUT PC N SEED
      one FDE over [PC, PC + N) whose rules change at every byte: a table
      of N rows, made by the linear interpreter (code alignment 1); SEED
      DW_CFA_nop first make each file's bytes, hence its digest, its own.

  eh_frame_gen.py remember OUT PC PAIRS ROWS [REG]
      a CIE libdw must run (code alignment 2) that names register REG
      (default 128: libdw's frame then holds 129 registers), and one FDE
      over [PC, PC + 2 * ROWS) that runs PAIRS DW_CFA_remember_state /
      DW_CFA_restore_state pairs before each of its ROWS rows: libdw runs
      the program from its start for every row, copying the frame at each
      remember.

  eh_frame_gen.py nops OUT PC BYTES ROWS
      the same CIE (without REG) and FDE, with BYTES DW_CFA_nop instead of
      the pairs: nothing but bytes for libdw to run at every row.
"""
import struct
import sys


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def entry(body):
    """A CIE or FDE: its length, then body padded with DW_CFA_nop to 8 bytes."""
    body += b'\0' * (-(len(body) + 4) % 8)
    return struct.pack('<I', len(body)) + body


def cie(code_align, reg=None):
    # id 0, version 1, "zR", code and data (-8) alignment, return address r16,
    # augmentation data: FDE pointers udata4; CFA rsp+8, return address at CFA-8
    body = struct.pack('<I', 0) + b'\x01zR\0' + uleb(code_align) + b'\x78' + b'\x10'
    body += uleb(1) + b'\x03' + b'\x0c\x07\x08' + b'\x90\x01'
    if reg is not None:
        body += b'\x08' + uleb(reg)		# DW_CFA_same_value reg
    return entry(body)


def section(c, pc, length, prog):
    # the CIE pointer: from the FDE's own field back to the CIE at 0
    fde = struct.pack('<I', len(c) + 4) + struct.pack('<II', pc, length) + uleb(0) + prog
    return c + entry(fde) + struct.pack('<I', 0)


def alternating(n):
    """n rows, one a byte: advance 1, then the CFA offset 16 or 8 by turns."""
    one = b'\x41\x0e\x10' + b'\x41\x0e\x08'
    return one * (n // 2) + (b'\x41\x0e\x10' if n % 2 else b'')


def main(argv):
    if len(argv) == 6 and argv[1] == 'rows':
        out, pc, n, seed = argv[2], int(argv[3], 0), int(argv[4]), int(argv[5])
        data = section(cie(1), pc, n, b'\0' * seed + alternating(n))
    elif len(argv) in (6, 7) and argv[1] == 'remember':
        out, pc, pairs, rows = argv[2], int(argv[3], 0), int(argv[4]), int(argv[5])
        reg = int(argv[6]) if len(argv) == 7 else 128
        # code alignment 2: an advance of 1 is 2 bytes, ROWS rows take 2 * ROWS
        data = section(cie(2, reg), pc, 2 * rows, b'\x0a\x0b' * pairs + alternating(rows))
    elif len(argv) == 6 and argv[1] == 'nops':
        out, pc, nops, rows = argv[2], int(argv[3], 0), int(argv[4]), int(argv[5])
        data = section(cie(2), pc, 2 * rows, b'\0' * nops + alternating(rows))
    else:
        sys.stderr.write(__doc__)
        return 2
    with open(out, 'wb') as f:
        f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
