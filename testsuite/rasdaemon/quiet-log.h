/* quiet-log.h - included first into vendor-oracle's rasdaemon files: rasdaemon's log()
 * (ras-logger.h), which would write a line per stored row, writes nothing. */
#include <syslog.h>
#define __RAS_LOGGER_H
#define SYSLOG 1
#define TERM 2
#define ALL 3
#define log(where, level, fmt, ...) do { } while (0)
