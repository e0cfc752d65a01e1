# the version line
--version
