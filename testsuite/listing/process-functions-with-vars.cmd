# a program's functions matching a glob, with their variables where the probe would be
-L 'process("/root/fn-calls").function("s*")'
