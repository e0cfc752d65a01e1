# nothing matches: an error, as stap exits 1 too
-l 'nosuch.*'
# status: 1
