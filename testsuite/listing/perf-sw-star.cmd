# the software events (tapset aliases of perf.type(1).config(N))
-l 'perf.sw.*'
