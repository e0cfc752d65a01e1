# the timer points, one component after timer
-l 'timer.*'
