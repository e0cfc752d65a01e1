# a system's tracepoints by a pattern: the system from the kernel's trace headers, also for
# those a header declares through its own macro (DEFINE_EVENT_SCHEDSTAT for sched_stat_wait)
-l 'kernel.trace("sched:sched_stat_*")'
