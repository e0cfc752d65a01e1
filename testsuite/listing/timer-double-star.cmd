# every timer point, with its .randomize variants (timer.profile.tick is not listed: this kernel lacks it)
-l 'timer.**'
