# pass 3 says what it cannot do with a perf point yet, at the point the script wrote
# status: 1
-p3 -e 'probe perf.hw.cpu_cycles.process("/bin/ls") { }'
