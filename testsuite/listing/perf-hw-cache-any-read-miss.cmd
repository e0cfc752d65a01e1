# a wildcard in the middle of a point
-l 'perf.hw_cache.*.read.miss'
