/* target_frames.c - backtrace frames of a target: names for them
 * (function, file:line, inline chain; tail calls recovered from call-site
 * information), and the walks the kernel hands over when it meets a frame
 * in a mapping it has not been told about, finished here with the same
 * rows (unwind/walk.h) once the mapping is known.
 */
#include "dwarf/module.h"
#include "dwarf/symbolize.h"
#include "dwarf/symtab.h"
#include "dwarf/tailcall.h"
#include "render/render.h"
#include "tracer/target_priv.h"
#include "unwind/step.h"
#include "unwind/walk.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* ---- backtraces the kernel handed over ---- */

static const struct tmapping *mapping_of(const struct tprocess *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < p->maps[mid].start)
			hi = mid;
		else if (ip >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

bool target_frame_at(struct target *t, pid_t pid, uint64_t ip, bool exact, struct wr_bt_frame *out)
{
	const struct tprocess *p = target_process(t, pid);
	const struct tmapping *m = p ? mapping_of(p, ip) : NULL;

	if (!m && (p = target_refresh_process(t, pid)))
		m = mapping_of(p, ip);
	if (!m || ip - m->bias > UINT32_MAX)
		return false;
	*out = (struct wr_bt_frame){ .ip = ip, .pc = (uint32_t)(ip - m->bias), .cookie = (uint16_t)m->mod->cookie,
				     .flags = exact ? WR_FRAME_F_EXACT_IP : 0 };
	return true;
}

/* Is the mapping we know at the stop the one the kernel saw (same file,
 * start and offset)?  Without the kernel's view nothing is assumed. */
static bool same_mapping(const struct tprocess *p, const struct wr_stack_header *sh)
{
	const struct tmapping *m = mapping_of(p, sh->ip);
	uint64_t dev = makedev(sh->vma_dev >> 20, sh->vma_dev & 0xfffff);

	return m && (sh->flags & WR_STACK_F_VMA) && m->start == sh->vma_start &&
	       m->offset == sh->vma_pgoff && m->mod->dev == dev && m->mod->ino == sh->vma_ino;
}

struct finish_ctx {
	struct target *t;
	const struct tprocess *p;
	bool deferred;          /* the walk met a deferred module */
};

static int finish_lookup(void *ctx, uint64_t ip, bool exact, struct uw_where *w)
{
	struct finish_ctx *c = ctx;
	const struct tmapping *m = mapping_of(c->p, ip);
	uint64_t pc;
	long row;

	if (!m) {
		w->status = WR_BT_OFFSETS_UNAVAILABLE;
		return 0;
	}
	w->cookie = m->mod->cookie;
	w->bias = m->bias;
	c->deferred |= m->mod->cfi->deferred;
	/* A deferred module's rows: waited for, or read here. */
	target_load_module_cfi(c->t, m->mod);
	if (m->mod->cfi->rows.n == 0) {
		w->status = WR_BT_DWARF_UNAVAILABLE;
		return 0;
	}
	pc = ip - m->bias;
	row = cfi_table_lookup(&m->mod->cfi->rows, uw_row_pc(pc, exact));
	if (row < 0 || m->mod->cfi->rows.rows[row].rule >= m->mod->cfi->rules.n) {
		w->status = WR_BT_NO_ROWS_FOR_PC;
		return 0;
	}
	w->rule = &m->mod->cfi->rules.v[m->mod->cfi->rows.rows[row].rule];
	return 0;
}

int target_finish_backtrace(struct target *t, uint32_t pid, struct ev_backtrace *bt,
			    struct wr_bt_frame *frames)
{
	const struct wr_stack_header *sh = bt->stack;
	struct finish_ctx c = { t, NULL, false };
	struct uw_regs regs = { sh->ip, sh->sp, sh->bp, sh->slot_flags };
	struct uw_memory mem = { sh->base, bt->stack_data, sh->len };
	size_t n = bt->frame_count;

	if (!(sh->flags & WR_STACK_F_HANDOVER) || n == 0 || bt->frames[n - 1].ip != sh->ip ||
	    bt->requested_depth > WR_BT_MAX_DEPTH)
		return -ENOENT;
	c.p = target_refresh_process(t, (pid_t)pid);
	if (!c.p || !same_mapping(c.p, sh))
		return -ENOENT;
	memcpy(frames, bt->frames, n * sizeof(*frames));
	n--; /* the frame the kernel stopped at is walked again, now known */
	bt->status = uw_walk(finish_lookup, &c, &regs, &mem, frames, &n, bt->requested_depth,
			     &bt->error);
	bt->frame_count = (uint16_t)n;
	bt->frames = frames;
	t->stats.deferred_walks += c.deferred;
	return 0;
}

static bool is_signal_trampoline(struct tmodule *m, uint64_t pc)
{
	long idx = m->cfi->loaded ? cfi_table_lookup(&m->cfi->rows, pc) : -1;
	uint32_t rule;

	if (idx < 0)
		return false;
	rule = m->cfi->rows.rows[idx].rule;
	return rule < m->cfi->rules.n && m->cfi->rules.v[rule].kind == WR_ROW_SIGNAL;
}

void target_symbolize(struct target *t, const struct wr_bt_frame *f, struct render_frame *out)
{
	struct tmodule *m = target_module_by_cookie(t, f->cookie);
	uint64_t pc;

	memset(out, 0, sizeof(*out));
	if (!m)
		return;
	out->module_path = m->path;
	out->module_name = dw_module_name(m->dw);
	/* A return address points after the call: look up the call itself. */
	pc = (f->flags & WR_FRAME_F_EXACT_IP) || f->pc == 0 ? f->pc : f->pc - 1;
	if (is_signal_trampoline(m, pc)) {
		out->signal_trampoline = true;
		return;
	}
	dw_symbolize(m->dw, pc, &out->sym);
}

/* ---- tail calls ---- */

#define TAIL_CACHE 1024

struct tail_entry {
	uint64_t key[4];
	bool used;
	size_t n;
	struct render_frame frames[DW_TAILCALL_MAX];
};

/* Entry address of the function @f is in, from its symbolization. */
static uint64_t frame_entry(struct target *t, const struct wr_bt_frame *f, struct tmodule **mod)
{
	struct render_frame rf;
	uint64_t pc = (f->flags & WR_FRAME_F_EXACT_IP) ? f->pc : f->pc - 1;

	*mod = target_module_by_cookie(t, f->cookie);
	if (!*mod)
		return 0;
	target_symbolize(t, f, &rf);
	if (!rf.sym.n || !rf.sym.frames[rf.sym.n - 1].function)
		return 0;
	return pc - rf.sym.frames[rf.sym.n - 1].sym_offset;
}

/* dw_tailcall_linker: the first module in the dynamic linker's lookup
 * order (the program, then the libraries) that exports function @name. */
static bool bind_function(void *ctx, const char *name, struct dw_module **m, uint64_t *entry)
{
	struct target *t = ctx;
	struct tmodule **order = xcalloc(t->n_mods + 1, sizeof(*order));
	size_t n = target_modules_in_order(t, false, order);
	bool found = false;

	for (size_t i = 0; i < n && !found; i++)
		if (!order[i]->special && dw_module_dynamic_function(order[i]->dw, name, entry)) {
			*m = order[i]->dw;
			found = true;
		}
	free(order);
	return found;
}

/* The function the call site returning to @caller calls: its module and
 * entry (0 when unknown). */
static uint64_t called_function(struct target *t, const struct wr_bt_frame *caller, struct tmodule **mod)
{
	const char *name;
	uint64_t entry;
	struct dw_module *dw;

	*mod = target_module_by_cookie(t, caller->cookie);
	if (!*mod || (caller->flags & WR_FRAME_F_EXACT_IP) ||
	    dw_call_target((*mod)->dw, caller->pc, &name, &entry))
		return 0;
	if (entry || !name)
		return entry;
	/* declared in the caller's module: called through the PLT */
	if (!bind_function(t, name, &dw, &entry) || !(*mod = target_module_of(t, dw)))
		return 0;
	return entry;
}

static size_t find_tailcalls(struct target *t, const struct wr_bt_frame *callee,
			     const struct wr_bt_frame *caller, struct render_frame *out, size_t max)
{
	struct dw_tailcall_linker linker = { bind_function, t };
	struct tmodule *mc, *mt;
	struct dw_tailcall chain[DW_TAILCALL_MAX];
	uint64_t callee_entry, target_entry = called_function(t, caller, &mt);
	size_t n;

	callee_entry = frame_entry(t, callee, &mc);
	if (!target_entry || !callee_entry || !mc || (mt == mc && target_entry == callee_entry))
		return 0;
	n = dw_tailcall_chain(mt->dw, target_entry, mc->dw, callee_entry, &linker, chain, DW_TAILCALL_MAX);
	n = n < max ? n : max;
	for (size_t i = 0; i < n; i++) {
		/* innermost first: the last tail call is nearest the callee */
		const struct dw_tailcall *tc = &chain[n - 1 - i];
		struct tmodule *m = target_module_of(t, tc->m);
		struct render_frame *rf = &out[i];
		struct dw_sym sym;

		memset(rf, 0, sizeof(*rf));
		rf->module_path = m ? m->path : NULL;
		rf->module_name = dw_module_name(tc->m);
		rf->tail_pc = tc->call_pc;
		rf->tail_module = m ? m->cookie : 0;
		/* Named, as gdb names it, by the innermost function at the jump. */
		if (dw_symbolize(tc->m, rf->tail_pc, &sym) == 0 && sym.n) {
			rf->sym.frames = &sym.frames[0];
			rf->sym.n = 1;
		}
	}
	return n;
}

size_t target_tailcalls(struct target *t, const struct wr_bt_frame *callee,
			const struct wr_bt_frame *caller, struct render_frame *out, size_t max)
{
	uint64_t key[4] = { callee->cookie, callee->pc, caller->cookie, caller->pc };
	uint64_t h = (key[1] * 0x9e3779b97f4a7c15ull) ^ (key[3] * 0xc2b2ae3d27d4eb4full) ^ key[0] ^ key[2];
	struct tail_entry *e;

	if (!t->tails)
		t->tails = xcalloc(TAIL_CACHE, sizeof(*t->tails));
	e = &t->tails[h % TAIL_CACHE];
	if (!e->used || memcmp(e->key, key, sizeof(key)) != 0) {
		memcpy(e->key, key, sizeof(key));
		e->used = true;
		e->n = find_tailcalls(t, callee, caller, e->frames, DW_TAILCALL_MAX);
	}
	max = e->n < max ? e->n : max;
	memcpy(out, e->frames, max * sizeof(*out));
	return max;
}
