# a malformed pattern is an error
-l 'timer.ms('
# status: 1
