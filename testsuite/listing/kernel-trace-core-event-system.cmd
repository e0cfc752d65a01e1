# the core kernel's tracepoints whose header the kernel's headers hide (x86's
# irq_vectors.h pastes its names together: DEFINE_IRQ_VECTOR_EVENT(local_timer)): their
# system from the kernel's own event data, read in its vmlinux with symbols (the -dbg
# package's), as tracefs names them
# needs: kernel-dwarf
-l 'kernel.trace("irq_vectors:local_timer_*")'
