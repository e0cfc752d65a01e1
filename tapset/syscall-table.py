#!/usr/bin/env python3
"""syscall-table.py - writes tapset/syscalls.stp's tables of system call names, and
errno.stp's of error names, from the
kernel's uapi headers (x86_64: linux-headers-R-amd64's generated asm/unistd_64.h; arm64:
asm-generic/unistd.h as arm64's asm/unistd.h includes it), by compiling a list of every
__NR_ macro the preprocessor sees and printing its value.

    tapset/syscall-table.py X86_COMMON X86_ARCH ARM64_COMMON > tables.txt

X86_COMMON and X86_ARCH are /usr/src/linux-headers-R-common and -amd64; ARM64_COMMON the
-common of a release whose arm64 asm/unistd.h still includes asm-generic/unistd.h (6.1).
It prints the C initializers that syscalls.stp and errno.stp hold.
"""
import re
import subprocess
import sys
import tempfile
import os


def table(includes, header, pattern=r'^#define __NR_([a-z0-9_]+) ', prefix='__NR_',
          skip=('syscalls', 'arch_specific_syscall')):
    src = '#include <%s>\n' % header
    macros = subprocess.run(['gcc', '-nostdinc'] + includes + ['-dM', '-E', '-'], input=src,
                            capture_output=True, text=True, check=True).stdout
    names = sorted(set(re.findall(pattern, macros, re.M)) - set(skip))
    prog = src + '#include <stdio.h>\nint main(void)\n{\n' + ''.join(
        '\tprintf("%%d %s\\n", (int)(%s%s));\n' % (n, prefix, n) for n in names) + \
        '\treturn 0;\n}\n'
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'l.c'), 'w') as f:
            f.write(prog)
        subprocess.run(['gcc'] + includes + ['-o', os.path.join(d, 'l'), os.path.join(d, 'l.c')],
                       check=True)
        out = subprocess.run([os.path.join(d, 'l')], capture_output=True, text=True,
                             check=True).stdout
    t = {}
    for n, name in sorted((line.split() for line in out.splitlines()), key=lambda r: r[1]):
        t.setdefault(int(n), name)
    return t


def initializer(t):
    lines, line = [], '\t'
    for n in sorted(t):
        item = '[%d] = "%s",' % (n, t[n])
        if len(line) + len(item) + 1 > 92:
            lines.append(line.rstrip())
            line = '\t'
        line += item + ' '
    lines.append(line.rstrip())
    return '\n'.join(lines)


def main():
    x86_common, x86_arch, arm_common = sys.argv[1:4]
    x86 = table(['-I%s/arch/x86/include/generated/uapi' % x86_arch,
                 '-I%s/arch/x86/include/uapi' % x86_common, '-I%s/include/uapi' % x86_common],
                'asm/unistd_64.h')
    arm = table(['-I%s/arch/arm64/include/uapi' % arm_common, '-I%s/include/uapi' % arm_common],
                'asm/unistd.h')
    # from 451 on every architecture numbers its new calls alike
    for n, name in x86.items():
        if n >= 451 and n not in arm:
            arm[n] = name
    print('x86_64:\n' + initializer(x86))
    print('arm64:\n' + initializer(arm))
    # error names: the uapi ones and the kernel's own (ERESTARTSYS ...), the same on
    # x86_64 and arm64 (asm-generic); of two names for one number the first in the
    # alphabet (EAGAIN, not EWOULDBLOCK; EDEADLK, not EDEADLOCK)
    errs = table(['-I%s/include' % x86_common, '-I%s/arch/x86/include/generated/uapi' % x86_arch,
                  '-I%s/arch/x86/include/uapi' % x86_common, '-I%s/include/uapi' % x86_common],
                 'linux/errno.h',
                 pattern=r'^#define (E[A-Z0-9_]+) [0-9]', prefix='', skip=())
    print('errno:\n' + initializer(errs))


if __name__ == '__main__':
    main()
