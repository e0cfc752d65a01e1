# a concrete argument lists that point
-l 'timer.ms(100)'
