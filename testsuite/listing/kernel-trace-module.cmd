# a module's tracepoints (watchdog.ko's): found among the target's modules, the system
# from the kernel's trace header, the arguments' types from the module's BTF
-L 'kernel.trace("watchdog:*")'
