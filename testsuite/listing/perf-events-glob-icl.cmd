# wildcards inside the quotes, case-insensitive as libpfm4's names
--pmu=icl -l 'perf.events("*cache*miss*")'
