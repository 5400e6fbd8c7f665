/* info.h - the `info` topics and the `diag` report.
 *
 * Layer rule: private to src/tracer (called by the command interpreter).
 */
#ifndef WRAITH_TRACER_INFO_H
#define WRAITH_TRACER_INFO_H

#include <stdint.h>

struct session;
struct strbuf;

/* Run `info TOPIC [ARG]`.  Returns 0, -WR_EUSAGE for an unknown topic or a
 * missing argument, or another negative code with the reason in @out. */
int info_run(struct session *s, const char *topic, const char *arg, struct strbuf *out);

/* The diagnosis report: per probe, backtraces by status and error code
 * (label, number, explanation), the places where unwinding stopped most
 * often, and for each its sample event, the unwind row there and what
 * would fix it. */
void info_diag(struct session *s, struct strbuf *out);

/* Every function name of the target (main module first) and every source
 * file of modules with debug info (as "file.c:"), for completion.  Stops
 * when @fn returns non-zero. */
void info_foreach_name(struct session *s, int (*fn)(const char *name, uint64_t vaddr, void *ctx),
		       void *ctx);

#endif
