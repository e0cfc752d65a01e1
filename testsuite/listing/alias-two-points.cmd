# -L on an alias over two points (aliases/two.stp): what both have only, as stap prints
# it; an alias over a point this kernel lacks is listed with none (stap leaves it out)
-I aliases -L 'listing.*'
