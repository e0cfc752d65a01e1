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
"""
import os
import struct
import sys

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


SHAPES = {'sections': sections, 'copies': copies, 'strings': strings, 'one-name': one_name}

if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    SHAPES[sys.argv[1]](sys.argv[2])
    os.chmod(sys.argv[2], 0o755)
