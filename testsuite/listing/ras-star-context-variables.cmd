# every RAS point with its context variables
-L 'ras.*'
