# '!' between families is refused: perf and ras points are each decided by their own
# runtime table at start, which cannot name the other's entries
# status: 1
-p3 -e 'probe perf.hw.cpu_cycles !, ras.mce { }'
