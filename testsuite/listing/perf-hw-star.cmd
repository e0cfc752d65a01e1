# the hardware events (tapset aliases of perf.type(0).config(N))
-l 'perf.hw.*'
