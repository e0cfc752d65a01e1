# .return points list $return with the function's type
-L 'process("/root/fn-calls").function("fact").return'
