# every event of the generic PMUs and of one model (skx), one probe point each
--pmu=skx -l 'perf.events("*")'
