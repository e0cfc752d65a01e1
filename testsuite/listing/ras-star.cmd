# the RAS hardware-error points
-l 'ras.*'
