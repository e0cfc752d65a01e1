# a module's tracepoints no header of the target names (kvm.ko's arch/x86/kvm/mmu/mmutrace.h):
# their system from the module's own data (each event's class names it), as the kernel
# lists them in tracefs' available_events once kvm is loaded
-l 'kernel.trace("kvmmmu:*")'
