/* place.c - see place.h.
 *
 * The instructions are read from the module's file, as the kernel reads
 * them when it registers the uprobe.  Which call of which function an
 * address belongs to is what symbolizing it says: the chain of functions
 * and the call sites between them (two copies of one inlined call at the
 * same call site, as loop unrolling makes, count as one: the safe side).
 */
#include "tracer/place.h"
#include "dwarf/fnrange.h"
#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "dwarf/symbolize.h"
#include "runtime/uprobe_insn.h"
#include "util/strbuf.h"
#include "util/x86insn.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define READ_AHEAD 16     /* bytes the kernel copies of a probed instruction */
#define MAX_STEPS 16      /* no-ops stepped over at most */

/* One instruction at a module address, judged. */
struct judged {
	uint64_t at;
	uint8_t code[READ_AHEAD];
	struct x86insn in;
	enum uprobe_verdict verdict;
	const char *why;
	char buf[256];
};

static void judge_at(struct dw_module *m, uint64_t at, struct judged *j)
{
	long n = dw_module_read_const(m, at, j->code, sizeof(j->code));

	j->at = at;
	j->why = NULL;
	if (n <= 0) {
		memset(&j->in, 0, sizeof(j->in));
		j->verdict = UPROBE_INSN_UNKNOWN;
		return;
	}
	j->verdict = uprobe_insn_judge(j->code, (size_t)n, &j->in, &j->why, j->buf, sizeof(j->buf));
}

static bool usable(const struct judged *j)
{
	return j->verdict == UPROBE_INSN_OK || j->verdict == UPROBE_INSN_UNKNOWN;
}

static void add_bytes(struct strbuf *sb, const uint8_t *code, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, i ? " %02x" : "%02x", code[i]);
}

/* "66 2e 0f 1f ..., a no-op: its CS segment-override prefix (2e)" */
static void describe(struct strbuf *sb, const struct judged *j)
{
	add_bytes(sb, j->code, j->in.len);
	strbuf_addf(sb, "%s: %s", x86insn_is_nop(&j->in) ? ", a no-op" : "", j->why);
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether @t (an address's frames) lies within the call @s is the
 * innermost frame of: the same functions and call sites from @s's
 * innermost function outwards (@t may be deeper, in a call inlined into
 * it).  With @line, also at the same line and no deeper. */
static bool within(const struct dw_sym *s, const struct dw_sym *t, bool line)
{
	size_t d;

	if (t->n < s->n || (line && t->n != s->n))
		return false;
	d = t->n - s->n;
	for (size_t k = 0; k < s->n; k++) {
		const struct dw_sym_frame *x = &s->frames[k], *y = &t->frames[d + k];

		if (!str_same(x->function, y->function) || x->inlined != y->inlined)
			return false;
		if ((k || line) && (!str_same(x->file, y->file) || x->line != y->line))
			return false;
		if (k && x->col != y->col)
			return false;
	}
	return s->frames[0].function && (!line || s->frames[0].line);
}

static bool within_at(struct dw_module *m, const struct dw_sym *s, uint64_t pc, bool line)
{
	struct dw_sym t;

	dw_symbolize(m, pc, &t);
	return within(s, &t, line);
}

struct jump_scan {
	struct dw_module *m;
	const struct dw_sym *s;
	uint64_t site, to;
};

/* An instruction of the call j->s that jumps into (j->site, j->to]: 1
 * for an indirect jump (it may land anywhere), 2 for a direct one. */
static int jumps_into(const struct x86insn *in, uint64_t at, void *ctx)
{
	const struct jump_scan *j = ctx;
	uint64_t target;

	if (x86insn_is_indirect_jump(in) && within_at(j->m, j->s, at, false))
		return 1;
	if (x86insn_branch_target(in, at, &target) && target > j->site && target <= j->to &&
	    within_at(j->m, j->s, at, false))
		return 2;
	return 0;
}

/* NULL when no jump from within the call @s of the function holding
 * @site lands in (@site, @to], else why (or why that cannot be told). */
static const char *jumped_into(struct dw_module *m, const struct dw_sym *s, uint64_t site,
			       uint64_t to)
{
	struct jump_scan j = { m, s, site, to };

	switch (dw_function_each_insn(m, site, jumps_into, &j)) {
	case 0: return NULL;
	case 1: return "an indirect jump of the same call may land on it";
	case 2:
		return "a jump of the same call lands on it (a loop's head, say), so a probe "
		       "there would fire more often than the site";
	case -EIO: return "wraith could not decode the function's code to look for jumps to it";
	default: return "wraith cannot look through the function's code for jumps to it";
	}
}

/* The stand-in for @first (refused) into *@j, or why there is none:
 * 0, or -1 with *@why. */
static int stand_in(struct dw_module *m, const struct judged *first, bool by_line,
		    struct judged *j, const char **why)
{
	struct dw_sym s;

	*j = *first;
	if (!dw_module_has_dwarf(m)) {
		*why = "without debug information wraith cannot tell which instructions after it "
		       "still belong to the site";
		return -1;
	}
	dw_symbolize(m, first->at, &s);
	for (int step = 0; step < MAX_STEPS; step++) {
		if (j->in.len == 0 || !x86insn_is_nop(&j->in)) {
			*why = j->at == first->at ? "it is not a no-op, so a probe after it would see "
						   "what it did"
						 : "not all instructions up to one the kernel takes are no-ops";
			return -1;
		}
		judge_at(m, j->at + j->in.len, j);
		if (!within_at(m, &s, j->at, by_line)) {
			*why = by_line ? "the instruction after it is of another line"
				       : "the instruction after it is of another function or call";
			return -1;
		}
		if (usable(j)) {
			*why = jumped_into(m, &s, first->at, j->at);
			return *why ? -1 : 0;
		}
	}
	*why = "too many no-ops follow it";
	return -1;
}

static void moved(struct dw_module *m, const struct judged *first, const struct judged *to,
		  struct site_place *out, struct strbuf *note)
{
	struct dw_sym t;

	dw_symbolize(m, to->at, &t);
	out->vaddr = to->at;
	out->file = t.frames[0].file ? xstrdup(t.frames[0].file) : NULL;
	out->line = t.frames[0].line;
	out->col = t.frames[0].col;
	strbuf_addf(note, "placed at +0x%llx, past %s at +0x%llx that the kernel's uprobes refuse (",
		    (unsigned long long)to->at,
		    to->at - first->at > first->in.len ? "no-ops from the one" : "the no-op",
		    (unsigned long long)first->at);
	describe(note, first);
	strbuf_addch(note, ')');
}

/* Tests of the attach-error path set WRAITH_FAULT=placement: every
 * uprobe then goes on its site, whatever the instruction there. */
static bool placement_off(void)
{
	const char *fault = getenv("WRAITH_FAULT");

	return fault && strcmp(fault, "placement") == 0;
}

void site_place(struct dw_module *m, const struct dw_site *site, bool by_line,
		struct site_place *out)
{
	struct judged *j = xcalloc(2, sizeof(*j));
	struct strbuf note = STRBUF_INIT;
	const char *why = NULL;

	*out = (struct site_place){ .vaddr = site->vaddr };
	judge_at(m, site->vaddr, &j[0]);
	if (usable(&j[0]) || placement_off()) {
		free(j);
		return;
	}
	if (stand_in(m, &j[0], by_line, &j[1], &why) == 0) {
		moved(m, &j[0], &j[1], out, &note);
	} else {
		out->skip = true;
		strbuf_addf(&note, "the kernel's uprobes %s its first instruction (",
			    j[0].verdict == UPROBE_INSN_MISRUN ? "would mishandle" : "refuse");
		describe(&note, &j[0]);
		strbuf_addf(&note, "), and no later one can stand in for it: %s", why);
	}
	out->note = strbuf_detach(&note);
	free(j);
}

void site_insn_bytes(struct dw_module *m, uint64_t vaddr, struct strbuf *out)
{
	struct judged j;

	judge_at(m, vaddr, &j);
	add_bytes(out, j.code, j.in.len);
}
