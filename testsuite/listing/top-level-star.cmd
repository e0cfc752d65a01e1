# the points of one component: begin, end, error, never
-l '*'
