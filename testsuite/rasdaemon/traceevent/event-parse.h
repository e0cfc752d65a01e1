/* Enough of libtraceevent's header for rasdaemon's decoders to compile in oracle.c,
 * which never calls into libtraceevent. */
struct tep_handle;
struct tep_record;
struct tep_event;
struct tep_event_filter;
struct trace_seq;
