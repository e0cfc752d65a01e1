# -L: the event's description and whether this machine counts it (software events: always)
-L 'perf.events("perf::*CLOCK")'
