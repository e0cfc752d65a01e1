# every timer point, with its .randomize and .tick variants
-l 'timer.**'
