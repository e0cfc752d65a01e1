# --pmu names a model libpfm4 does not know: the models it knows
# status: 1
--pmu=skylake -p2 -e 'probe begin { }'
