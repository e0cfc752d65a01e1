#!/usr/bin/env python3
"""usyms_shapes.py - ELF files made to cost whoever reads their symbols, for usyms.exp
(the shapes of a security review's findings against hwtap-run's symbol hand-off).

  usyms_shapes.py sections OUT     a sparse 256 MiB file: 8 symbol tables, each the whole
                                   file, each saying (sh_entsize = sh_size) it holds one
                                   entry: libelf reads all of each
  usyms_shapes.py copies OUT       a sparse 128 MiB file: 8 symbol tables of 4M entries
                                   each (the most a module takes), all the same bytes
  usyms_shapes.py strings OUT      one small symbol table whose string table is 512 MiB
                                   (sparse)
  usyms_shapes.py one-name OUT     40,000 functions at one address sharing one 16 MiB
                                   name: each name's length and each comparison in the
                                   sort go over all of it
  usyms_shapes.py eh-work OUT      a function and an .eh_frame of 48 FDEs, each 1 MiB of
                                   DW_CFA_nop before 1024 rows: libdw reads an FDE from its
                                   start for each row (48 GiB of instructions in all)
  usyms_shapes.py eh-cut OUT       a function and an .eh_frame cut short: its CIE says it
                                   is longer than the section
  usyms_shapes.py eh-regs OUT      a function, a plain FDE, and FDEs that would make libdw's
                                   register tables huge: register 60 million, 100,000
                                   remembered states
  usyms_shapes.py debuglink OUT NAME DEBUG
                                   a .gnu_debuglink section's contents naming NAME (any
                                   bytes: ../f.debug), with DEBUG's CRC
"""
import os
import struct
import sys
import zlib

SHT_SYMTAB, SHT_STRTAB = 2, 3


def header(shoff, nsec, e_type=2):
    ident = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
    return ident + struct.pack('<HHIQQQIHHHHHH', e_type, 62, 1, 0x1000, 0, shoff, 0,
                               64, 56, 0, 64, nsec, 1)


def section(name, typ, off, size, link=0, info=0, entsize=0, flags=0, addr=0):
    return struct.pack('<IIQQQQIIQQ', name, typ, flags, addr, off, size, link, info, 8,
                       entsize)


SHSTR = b'\0.shstrtab\0.symtab\0.strtab\0.text\0'   # names at 1, 11, 19, 27


def write(out, size, pieces):
    """A file of SIZE bytes (sparse) with each (offset, bytes) of PIECES in place."""
    with open(out, 'wb') as f:
        f.truncate(size)
        for off, data in pieces:
            f.seek(off)
            f.write(data)


def sections(out):
    size, k = 256 << 20, 8
    shoff = size - (2 + k) * 64
    shdrs = bytes(64) + section(1, SHT_STRTAB, 64, len(SHSTR))
    shdrs += b''.join(section(11, SHT_SYMTAB, 0, shoff, 1, 0, shoff) for _ in range(k))
    write(out, size, [(0, header(shoff, 2 + k)), (64, SHSTR), (shoff, shdrs)])


def copies(out):
    size, k, n = 128 << 20, 8, 1 << 22
    shoff = size - (3 + k) * 64
    strtab_off = 4096
    shdrs = bytes(64) + section(1, SHT_STRTAB, 64, len(SHSTR)) + \
        section(19, SHT_STRTAB, strtab_off, 2)
    shdrs += b''.join(section(11, SHT_SYMTAB, 8192, n * 24, 2, 1, 24) for _ in range(k))
    write(out, size, [(0, header(shoff, 3 + k)), (64, SHSTR), (strtab_off, b'\0\0'),
                      (shoff, shdrs)])


def strings(out):
    size = (512 << 20) + 16384
    sym = bytes(24) + struct.pack('<IBBHQQ', 1, 0x12, 0, 3, 0x1000, 16)
    shoff = 8192
    shdrs = bytes(64) + section(1, SHT_STRTAB, 64, len(SHSTR)) + \
        section(11, SHT_SYMTAB, 4096, len(sym), 3, 1, 24) + \
        section(19, SHT_STRTAB, 16384, size - 16384) + \
        section(27, 1, 0, 0x100, flags=6, addr=0x1000)
    write(out, size, [(0, header(shoff, 5)), (64, SHSTR), (4096, sym), (shoff, shdrs),
                      (16384, b'\0f\0')])


def one_name(out):
    n, length = 40000, 16 << 20
    strtab = b'\0' + b'A' * length + b'\0'
    symtab = bytes(24) + struct.pack('<IBBHQQ', 1, 0x12, 0, 4, 0x1000, 16) * n
    sym_off = 4096
    str_off = sym_off + len(symtab)
    shoff = (str_off + len(strtab) + 7) & ~7
    shdrs = bytes(64) + section(1, SHT_STRTAB, 64, len(SHSTR)) + \
        section(11, SHT_SYMTAB, sym_off, len(symtab), 3, 1, 24) + \
        section(19, SHT_STRTAB, str_off, len(strtab)) + \
        section(27, 1, 0, 0x100, flags=6, addr=0x1000)
    write(out, shoff + len(shdrs), [(0, header(shoff, 5)), (64, SHSTR), (sym_off, symtab),
                                    (str_off, strtab), (shoff, shdrs)])


SHSTR_EH = b'\0.shstrtab\0.symtab\0.strtab\0.text\0.eh_frame\0'   # .eh_frame at 33


def cie():
    """A CIE as GCC writes x86-64's: "zR", FDE pointers pcrel|sdata4, CFA = rsp + 8, the
    return address at CFA - 8."""
    body = struct.pack('<I', 0) + bytes([1]) + b'zR\0' + bytes([1, 0x78, 16, 1, 0x1b])
    body += bytes([0x0c, 7, 8, 0x90, 1])
    body += bytes((-len(body) - 4) % 8)
    return struct.pack('<I', len(body)) + body


def fde(at, cie_at, start, length, instructions):
    """An FDE at section offset AT (address EH + AT) for [START, START + LENGTH)."""
    body = struct.pack('<I', at + 4 - cie_at)
    body += struct.pack('<iI', start - (EH + at + 8), length) + bytes([0])
    body += instructions
    body += bytes((-len(body) - 4) % 8)
    return struct.pack('<I', len(body)) + body


EH, TEXT = 0x200000, 0x1000


def with_eh_frame(out, eh):
    sym = bytes(24) + struct.pack('<IBBHQQ', 1, 0x12, 0, 4, TEXT, 16)
    strtab = b'\0f\0'
    sym_off, str_off, eh_off = 4096, 8192, 12288
    shoff = (eh_off + len(eh) + 7) & ~7
    shdrs = bytes(64) + section(1, SHT_STRTAB, 64, len(SHSTR_EH)) + \
        section(11, SHT_SYMTAB, sym_off, len(sym), 3, 1, 24) + \
        section(19, SHT_STRTAB, str_off, len(strtab)) + \
        section(27, 1, 0, 1 << 20, flags=6, addr=TEXT) + \
        section(33, 1, eh_off, len(eh), flags=2, addr=EH)
    write(out, shoff + len(shdrs), [(0, header(shoff, 6)), (64, SHSTR_EH), (sym_off, sym),
                                    (str_off, strtab), (eh_off, eh), (shoff, shdrs)])


def eh_work(out):
    eh = cie()
    rows = b''.join(bytes([0x41, 0x0e, 8 + 8 * (i % 2)]) for i in range(1024))
    for k in range(48):
        eh += fde(len(eh), 0, TEXT + k * 4096, 4096, bytes(1 << 20) + rows)
    with_eh_frame(out, eh + bytes(4))


def uleb(v):
    out = b''
    while True:
        b, v = v & 0x7f, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def eh_regs(out):
    """A plain FDE, then one whose DW_CFA_offset_extended names register 60 million (libdw
    keeps a table of every register up to it: 480 MiB), then one that remembers 100,000
    states (a copy of the table each)."""
    eh = cie()
    eh += fde(len(eh), 0, TEXT, 16, bytes([0x41, 0x0e, 16]))
    eh += fde(len(eh), 0, TEXT + 16, 16, bytes([0x41, 0x05]) + uleb(60000000) + uleb(1))
    eh += fde(len(eh), 0, TEXT + 32, 16, bytes([0x0a]) * 100000)
    with_eh_frame(out, eh + bytes(4))


def eh_cut(out):
    eh = cie()
    eh = struct.pack('<I', 1 << 20) + eh[4:]
    with_eh_frame(out, eh)


def debuglink(out, name, debug):
    """A .gnu_debuglink section's contents naming NAME, whatever it holds, with the CRC of
    the file DEBUG: the name, NUL, padding to 4 bytes, the CRC-32 (little-endian)."""
    data = name.encode() + b'\0'
    data += bytes(-len(data) % 4)
    with open(debug, 'rb') as f:
        data += struct.pack('<I', zlib.crc32(f.read()))
    with open(out, 'wb') as f:
        f.write(data)


SHAPES = {'sections': sections, 'copies': copies, 'strings': strings, 'one-name': one_name,
          'eh-work': eh_work, 'eh-cut': eh_cut, 'eh-regs': eh_regs}

if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'debuglink':
        debuglink(*sys.argv[2:])
        sys.exit(0)
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    SHAPES[sys.argv[1]](sys.argv[2])
    os.chmod(sys.argv[2], 0o755)
