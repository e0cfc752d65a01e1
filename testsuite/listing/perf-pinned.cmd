# .pinned sets perf_event_attr.pinned, on every spelling of a perf point, counting or
# sampling; -p2 says so
-p2 -e 'probe perf.hw.instructions.counter("i").pinned { } probe perf.type(0).config(0).pinned.sample(5000) { n++ } probe perf.events("cycles").pinned { n++ } global n'
