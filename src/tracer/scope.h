/* scope.h - the names a probe's body sees where it stands: the
 * variables visible at its site, their members and the methods a probe
 * reads on them, the special variables and the built-ins.  For the
 * shell's completion inside `trace PATTERN { ... }` and `info scope`.
 *
 * Layer rule: private to src/tracer.  Nothing is compiled or attached:
 * the pattern is resolved to its sites and the debug info read there.
 */
#ifndef WRAITH_TRACER_SCOPE_H
#define WRAITH_TRACER_SCOPE_H

struct session;
struct strbuf;

/* Completion of @expr, the expression being typed at the end of a probe
 * body whose pattern is @pattern (as written after `trace`).  After
 * `PATH.` or `PATH->`: the members of PATH's type and its methods
 * ("size()"); otherwise the variables visible at the pattern's first
 * site (a method's class members too, as gdb finds them without
 * `this->`), the special variables, statement words and built-ins.
 * Calls @fn with each whole word (@expr's text up to the part
 * completed, then the candidate), whether or not it starts with @expr:
 * the caller filters. */
void scope_complete(struct session *s, const char *pattern, const char *expr,
		    void (*fn)(const char *word, void *ctx), void *ctx);

/* `info scope PATTERN`: for each site (the first few), the variables
 * visible there with their types and where they are, and the methods a
 * probe reads on them.  Returns 0, or -WR_ENOTARGET with the reason in
 * @out. */
int scope_info(struct session *s, const char *pattern, struct strbuf *out);

#endif
