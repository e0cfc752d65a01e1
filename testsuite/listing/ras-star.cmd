# the RAS points: the hardware-error sources and the others rasdaemon reads
-l 'ras.*'
