# -D takes a C identifier
-D 1BAD=2 -e 'probe begin { x = 1 }'
# status: 1
