# -a names an architecture hwtap has no guest for: the ones it has
# status: 1
-a sparc64 -p2 -e 'probe begin { }'
