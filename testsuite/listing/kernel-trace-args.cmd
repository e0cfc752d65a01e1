# a tracepoint of the target kernel with its arguments' types, from BTF, as stap -L shows them
-L 'kernel.trace("sched:sched_switch")'
