/* sema.h - what sema.c and sema_probes.c, the two halves of pass 2, share. */
#ifndef HWTAP_SEMA_H
#define HWTAP_SEMA_H

#include "hwtap.h"

/* The user's script, then the tapset files, in OUT. */
void all_scripts(Session *s, Vec *out);

/* USER's derived probes appended to s->probes; each .counter("NAME") seen is checked
 * against and added to COUNTERS. Errors are reported, not returned. */
void derive_probes(Session *s, Vec *counters, Probe *user);

#endif
