# no script is a usage error
-p2
# status: 1
