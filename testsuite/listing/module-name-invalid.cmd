# -m takes a module name
-m 'bad-name' -e 'probe begin { x = 1 }'
# status: 1
