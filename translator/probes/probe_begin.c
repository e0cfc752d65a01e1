/* probe_begin.c - begin, end and error probes (with an optional priority: begin(-1) runs
 * before begin), init (SystemTap's: before every begin probe, whatever its priority; pass 3
 * makes it a begin probe in every other way), and never, which is elaborated but never
 * runs. */
#include "hwtap.h"

static const PointShape begin_shapes[] = {{"begin"}, {"begin(number)"}, {NULL}};
static const PointShape end_shapes[] = {{"end"}, {"end(number)"}, {NULL}};
static const PointShape error_shapes[] = {{"error"}, {"error(number)"}, {NULL}};
static const PointShape never_shapes[] = {{"never"}, {NULL}};
static const PointShape init_shapes[] = {{"init"}, {NULL}};

const ProbeFamily begin_family = {.name = "begin", .shapes = begin_shapes};
const ProbeFamily end_family = {.name = "end", .shapes = end_shapes};
const ProbeFamily error_family = {.name = "error", .shapes = error_shapes};
const ProbeFamily never_family = {.name = "never", .shapes = never_shapes};
const ProbeFamily init_family = {.name = "init", .shapes = init_shapes};
