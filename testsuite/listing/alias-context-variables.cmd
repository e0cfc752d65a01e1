# -L on a tapset alias: as stap prints one, the locals its body assigns, with their types,
# then the context variables of the point it stands for
-L 'scheduler.process_fork'
