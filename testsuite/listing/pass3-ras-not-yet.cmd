# pass 3 says what it cannot do yet, at the point the script wrote
# status: 1
-p3 -e 'probe ras.mce { }'
