# the L1 data cache events: operation and result
-l 'perf.hw_cache.l1d.**'
