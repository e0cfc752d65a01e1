# ras.mce with its context variables
-L 'ras.mce'
