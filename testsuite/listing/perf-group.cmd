# .group("NAME") on counters of every spelling: -p2 names each counter's group
-p2 -e 'probe perf.hw.cpu_cycles.process.counter("c").group("ipc") { } probe perf.events("instructions:u").process.counter("i").group("ipc") { } probe perf.type(1).config(2).counter("pf").group("sw") { } probe end { println(@perf("i")) }'
