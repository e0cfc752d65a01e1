# a pattern without wildcard lists the point with and without its argument
-l 'end'
