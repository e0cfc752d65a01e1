# the tapset's globals are declared in the library's order (indent.stp before this.stp),
# whichever file a script needs first: this.stp's global is used before indent.stp's, and
# each file is parsed only when its name is first looked up
-p2 -e 'probe begin { __this_var1[1] = 1; __indent_level[1] = 2 }'
