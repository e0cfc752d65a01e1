# a wildcard at the end of a component
-l 'ras.m*'
