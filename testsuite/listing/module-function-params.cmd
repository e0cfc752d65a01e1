# a module's functions from its BTF, with their parameters' types
-L 'module("mce_inject").function("inj_status_*")'
