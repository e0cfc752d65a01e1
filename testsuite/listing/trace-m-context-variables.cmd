# kernel.trace("mce:mce_record") and its arguments; $m's members are $m->NAME
-L 'kernel.trace("mce:m*")'
