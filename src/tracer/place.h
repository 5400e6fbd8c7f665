/* place.h - where a probe site's uprobe goes: the site's own address
 * when the kernel's uprobes take the instruction there, else the first
 * instruction after it that stands in for it exactly, else nowhere.
 *
 * Layer rule: private to src/tracer.
 *
 * An instruction stands in for the site when
 *  - the site's instruction and any others before it are no-ops, so the
 *    program's state there is the state at the site;
 *  - it belongs to the same call of the same function as the site (the
 *    same inlined call, when the site is one), and for a site of a line or
 *    an address to the same line: a function's site may move from the
 *    padding in front of its code, which the line table gives to the line
 *    before, to its first instruction;
 *  - the kernel takes it;
 *  - no jump from within that call lands on it or on a no-op before it,
 *    so it runs as often as the site: the padding before a loop's head is
 *    followed by the head, which each iteration jumps back to (a jump from
 *    outside - the caller's loop around an inlined call - starts the call
 *    anew, and the site would have missed it).  An indirect jump within
 *    the call could land anywhere: no stand-in then.
 */
#ifndef WRAITH_TRACER_PLACE_H
#define WRAITH_TRACER_PLACE_H

#include <stdbool.h>
#include <stdint.h>

struct dw_module;
struct dw_site;

struct site_place {
	uint64_t vaddr;  /* where the uprobe goes */
	bool skip;       /* nowhere: the site cannot be probed */
	char *note;      /* owned; NULL when the uprobe goes on the site itself:
			    where it went instead and why, or why nowhere */
	char *file;      /* owned: the source position at vaddr when it moved */
	unsigned line, col;
};

/* Place the uprobe of @site of module @m into @out; @by_line for a site
 * of a line or an address (it keeps to its line).  Always succeeds; free
 * out->note and out->file. */
void site_place(struct dw_module *m, const struct dw_site *site, bool by_line,
		struct site_place *out);

struct strbuf;
/* The bytes of the instruction at @vaddr of @m, "66 2e 0f 1f ...", into
 * @out (nothing when they cannot be read). */
void site_insn_bytes(struct dw_module *m, uint64_t vaddr, struct strbuf *out);

#endif
