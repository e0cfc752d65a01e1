# '!' and '?' on perf points are decided when the module starts: pass 2 keeps every
# alternative and says what each one's start depends on, through an alias too
-p2 -e 'probe my.cycles = perf.hw.cpu_cycles !, perf.sw.cpu_clock { } probe my.cycles { n++ } probe perf.hw.cache_misses ?, perf.sw.page_faults { n++ } global n'
