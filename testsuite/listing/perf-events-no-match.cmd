# an event that matches nothing: the usual error
# status: 1
-l 'perf.events("*NO_SUCH_EVENT*")'
