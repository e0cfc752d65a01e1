# pass 2 names a program as it resolves: through $PATH and its links (/bin is a link to
# /usr/bin on Debian 12), as SystemTap does; a --vm-file destination as it is
-p2 --vm-file /bin/true:/root/t -e 'probe process("ls").begin, process("/bin/true").end, process("/root/t").thread.begin, process.thread.end { }'
