# kernel.trace's hardware-error tracepoints
-l 'kernel.trace("*")'
