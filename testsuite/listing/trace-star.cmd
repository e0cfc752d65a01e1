# kernel.trace's hardware-error tracepoints, decoded (probe_ras.c), each listed once among
# the system's others
-l 'kernel.trace("ras:*")'
