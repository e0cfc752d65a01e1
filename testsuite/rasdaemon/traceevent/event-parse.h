/* Enough of libtraceevent's header for rasdaemon's decoders to compile in oracle.c and
 * vendor-oracle.c, which never call into libtraceevent (vendor-oracle.c has its own
 * trace_seq_printf(), which keeps nothing). */
struct tep_handle;
struct tep_record;
struct tep_event;
struct tep_event_filter;
struct trace_seq;
int trace_seq_printf(struct trace_seq *s, const char *fmt, ...);
