# there are five passes
-p 6 -e 'probe begin { x = 1 }'
# status: 1
