# passes 3-5 are not in this version: a clear error
-e 'probe begin { x = 1 }'
# status: 1
