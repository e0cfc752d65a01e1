# SystemTap parses probe point alternatives in braces and prints every point they make
-p1 -e 'global x; probe {kernel,module("ext4")}.function("f").{call,return}, syscall.{open?,close}, timer.{s(1),ms(1)}! if (x) { }'
