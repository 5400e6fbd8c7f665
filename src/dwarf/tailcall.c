/* tailcall.c - recovering tail-called functions from DW_TAG_call_site
 * (see tailcall.h).
 *
 * Both spellings are read: DWARF 5 (DW_TAG_call_site, DW_AT_call_origin,
 * DW_AT_call_return_pc, DW_AT_call_pc, DW_AT_call_tail_call) and the GNU
 * extension GCC emits for DWARF 4 (DW_TAG_GNU_call_site with
 * DW_AT_abstract_origin, DW_AT_low_pc and DW_AT_GNU_tail_call).  The tail
 * calls of each function are collected once and cached in the module.
 */
#include "dwarf/tailcall.h"
#include "dwarf/module_priv.h"
#include "dwarf/resolve.h"
#include "dwarf/symbolize.h"
#include "dwarf/fnrange.h"
#include "util/x86insn.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAINS 32

struct edge {
	uint64_t to;       /* entry of the tail-called function, or 0: */
	const char *name;  /* one of another module (borrowed from libdw) */
	uint64_t call_pc;  /* the jump */
};

struct node {
	uint64_t entry;
	struct edge *edges; /* owned */
	size_t n_edges;
};

/* A function as gdb 13 sees its tail calls, for entry values. */
struct gdb_node {
	uint64_t entry;
	uint64_t *to;       /* entries its tail calls reach in this module; owned */
	size_t n_to, cap_to;
	bool opaque;        /* a tail call gdb cannot follow, or no function here */
};

struct verdict {
	uint64_t entry;
	bool known;         /* dw_tailcall_entry_values() */
};

/* dw_entry_straight()'s answer for one pc of a function. */
struct straight {
	uint64_t entry, pc;
	bool known;
	uint32_t written;
};

struct tail_cache {
	struct node *nodes; /* owned */
	size_t n, cap;
	struct gdb_node *gdb; /* owned */
	size_t n_gdb, cap_gdb;
	struct verdict *verdicts; /* owned */
	size_t n_verdicts, cap_verdicts;
	struct verdict *called; /* owned: dw_entry_only_called(), in known */
	size_t n_called, cap_called;
	struct straight *straight; /* owned: dw_entry_straight() */
	size_t n_straight, cap_straight;
};

static void cache_destroy(void *data)
{
	struct tail_cache *c = data;

	for (size_t i = 0; i < c->n; i++)
		free(c->nodes[i].edges);
	for (size_t i = 0; i < c->n_gdb; i++)
		free(c->gdb[i].to);
	free(c->nodes);
	free(c->gdb);
	free(c->verdicts);
	free(c->called);
	free(c->straight);
	free(c);
}

static struct tail_cache *cache_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_TAILCALL];

	if (!ext->data) {
		ext->data = xcalloc(1, sizeof(struct tail_cache));
		ext->destroy = cache_destroy;
	}
	return ext->data;
}

static bool is_call_site(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

static uint64_t addr_attr(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Addr v;

	if (!dwarf_attr(die, name, &a) || dwarf_formaddr(&a, &v))
		return 0;
	return v;
}

static uint64_t return_pc(Dwarf_Die *cs)
{
	uint64_t pc = addr_attr(cs, DW_AT_call_return_pc);

	return pc ? pc : addr_attr(cs, DW_AT_low_pc);
}

static bool is_tail_call(Dwarf_Die *cs)
{
	return dwarf_hasattr(cs, DW_AT_call_tail_call) || dwarf_hasattr(cs, DW_AT_GNU_tail_call);
}

/* The DIE of the function a call site calls, or false (indirect call). */
static bool call_origin(Dwarf_Die *cs, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(cs, DW_AT_call_origin, &a) && !dwarf_attr(cs, DW_AT_abstract_origin, &a))
		return false;
	return dwarf_formref_die(&a, out) != NULL;
}

static const char *function_name(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	const char *name;

	if ((dwarf_attr_integrate(fn, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &a)) && (name = dwarf_formstring(&a)))
		return name;
	return dwarf_diename(fn);
}

uint64_t dw_function_entry(struct dw_module *m, const char *name)
{
	struct dw_sites sites = { 0 };
	uint64_t entry = 0;

	if (dw_resolve_function(m, name, &sites) == 0) {
		for (size_t i = 0; i < sites.n && !entry; i++) {
			struct dw_sym sym;

			if (sites.v[i].inlined || dw_symbolize(m, sites.v[i].vaddr, &sym) || !sym.n)
				continue;
			entry = sites.v[i].vaddr - sym.frames[sym.n - 1].sym_offset;
		}
	}
	dw_sites_release(&sites);
	return entry;
}

/* Entry address of the function @origin names. */
static uint64_t origin_entry(struct dw_module *m, Dwarf_Die *origin)
{
	Dwarf_Addr low;
	const char *name;

	if (!dwarf_hasattr(origin, DW_AT_declaration) && dwarf_lowpc(origin, &low) == 0)
		return low;
	name = function_name(origin);
	return name ? dw_function_entry(m, name) : 0;
}

/* Search @die's children for the deepest subprogram whose code holds
 * @pc (lambdas sit inside their defining function's DIE). */
static bool find_subprogram(Dwarf_Die *die, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Die child;
	bool found = false;

	if (dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&child, pc) == 1) {
			*out = child;
			find_subprogram(&child, pc, out);
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
		     tag == DW_TAG_class_type || tag == DW_TAG_subprogram) &&
		    find_subprogram(&child, pc, out))
			found = true;
	} while (!found && dwarf_siblingof(&child, &child) == 0);
	return found;
}

/* The subprogram DIE whose code contains @pc, in @out.  (dwarf_getscopes
 * does not do: at a pc inside inlined code it returns the inlined
 * function's abstract scopes, not the function that holds the code.) */
static bool function_die(struct dw_module *m, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Die cu;

	return dw_unit_at(m, pc, &cu) && find_subprogram(&cu, pc, out);
}

/* Call each call site under @die (blocks and inlined code included). */
static bool walk_call_sites(Dwarf_Die *die, bool (*fn)(Dwarf_Die *cs, void *ctx), void *ctx)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (is_call_site(&child) && fn(&child, ctx))
			return true;
		if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
		    walk_call_sites(&child, fn, ctx))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

struct find_site {
	uint64_t ret_pc;
	Dwarf_Die found;
};

static bool match_return(Dwarf_Die *cs, void *ctx)
{
	struct find_site *f = ctx;

	if (return_pc(cs) != f->ret_pc)
		return false;
	f->found = *cs;
	return true;
}

int dw_call_target(struct dw_module *m, uint64_t ret_pc, const char **name, uint64_t *entry)
{
	struct find_site f = { .ret_pc = ret_pc };
	Dwarf_Die fn, origin;

	*name = NULL;
	*entry = 0;
	if (!function_die(m, ret_pc - 1, &fn) || !walk_call_sites(&fn, match_return, &f) ||
	    !call_origin(&f.found, &origin))
		return -ENOENT;
	*name = function_name(&origin);
	*entry = origin_entry(m, &origin);
	return 0;
}

/* ---- the tail-call graph ---- */

struct collect {
	struct dw_module *m;
	struct node *node;
	size_t cap;
};

static bool collect_edge(Dwarf_Die *cs, void *ctx)
{
	struct collect *c = ctx;
	Dwarf_Die origin;
	uint64_t to, call_pc;

	const char *name = NULL;

	/* gdb 13 reads no call site without a return address (clang's tail
	 * calls give DW_AT_call_pc only) and shows no frame for it */
	if (!is_tail_call(cs) || !return_pc(cs) || !call_origin(cs, &origin))
		return false;
	to = origin_entry(c->m, &origin);
	/* declared here, defined elsewhere: the linker says where */
	if (!to && (!dwarf_hasattr_integrate(&origin, DW_AT_declaration) || !(name = function_name(&origin))))
		return false;
	call_pc = addr_attr(cs, DW_AT_call_pc);
	if (!call_pc)
		call_pc = return_pc(cs) - 1;
	c->node->edges = xgrow(c->node->edges, &c->cap, c->node->n_edges + 1, sizeof(struct edge));
	c->node->edges[c->node->n_edges++] = (struct edge){ to, name, call_pc };
	return false;
}

static const struct node *node_of(struct dw_module *m, uint64_t entry)
{
	struct tail_cache *c = cache_of(m);
	struct collect col = { .m = m };
	Dwarf_Die fn;

	for (size_t i = 0; i < c->n; i++)
		if (c->nodes[i].entry == entry)
			return &c->nodes[i];
	c->nodes = xgrow(c->nodes, &c->cap, c->n + 1, sizeof(*c->nodes));
	col.node = &c->nodes[c->n++];
	memset(col.node, 0, sizeof(*col.node));
	col.node->entry = entry;
	if (function_die(m, entry, &fn))
		walk_call_sites(&fn, collect_edge, &col);
	return col.node;
}

struct search {
	const struct dw_tailcall_linker *linker;
	struct dw_module *to_m;
	uint64_t to;
	struct dw_tailcall path[DW_TAILCALL_MAX];
	struct dw_tailcall chains[MAX_CHAINS][DW_TAILCALL_MAX];
	size_t lens[MAX_CHAINS];
	size_t n_chains;
};

static bool on_path(const struct search *s, size_t depth, struct dw_module *m, uint64_t entry)
{
	for (size_t i = 0; i < depth; i++)
		if (s->path[i].m == m && s->path[i].entry == entry)
			return true;
	return false;
}

/* Where edge @e of a function of @m leads: *@to_m, its return value. */
static uint64_t edge_target(const struct search *s, struct dw_module *m, const struct edge *e,
			    struct dw_module **to_m)
{
	uint64_t to = 0;

	*to_m = m;
	if (e->to)
		return e->to;
	if (s->linker && s->linker->bind(s->linker->ctx, e->name, to_m, &to))
		return to;
	return 0;
}

/* Depth-first over tail calls from @entry of @m; every path that reaches
 * s->to is kept.  (The node pointer is re-fetched after each recursion:
 * the cache may grow.) */
static void search_from(struct search *s, struct dw_module *m, uint64_t entry, size_t depth)
{
	size_t n_edges;

	if (depth >= DW_TAILCALL_MAX || s->n_chains >= MAX_CHAINS || on_path(s, depth, m, entry) ||
	    !dw_module_dwarf(m))
		return;
	n_edges = node_of(m, entry)->n_edges;
	for (size_t i = 0; i < n_edges; i++) {
		struct edge e = node_of(m, entry)->edges[i];
		struct dw_module *to_m;
		uint64_t to = edge_target(s, m, &e, &to_m);

		if (!to)
			continue;
		s->path[depth] = (struct dw_tailcall){ m, entry, e.call_pc };
		if (to_m == s->to_m && to == s->to) {
			if (s->n_chains < MAX_CHAINS) {
				memcpy(s->chains[s->n_chains], s->path, (depth + 1) * sizeof(s->path[0]));
				s->lens[s->n_chains++] = depth + 1;
			}
			continue;
		}
		search_from(s, to_m, to, depth + 1);
	}
}

static bool same_call(const struct dw_tailcall *a, const struct dw_tailcall *b)
{
	return a->m == b->m && a->entry == b->entry && a->call_pc == b->call_pc;
}

/* Several chains fit: keep what they all start and all end with. */
static size_t common_ends(const struct search *s, struct dw_tailcall *out, size_t max)
{
	size_t shortest = s->lens[0], pre = 0, suf = 0, n = 0;

	for (size_t k = 1; k < s->n_chains; k++)
		shortest = s->lens[k] < shortest ? s->lens[k] : shortest;
	for (; pre < shortest; pre++) {
		for (size_t k = 1; k < s->n_chains; k++)
			if (!same_call(&s->chains[k][pre], &s->chains[0][pre]))
				goto prefix_done;
	}
prefix_done:
	for (; suf + pre < shortest; suf++) {
		for (size_t k = 1; k < s->n_chains; k++)
			if (!same_call(&s->chains[k][s->lens[k] - 1 - suf],
				       &s->chains[0][s->lens[0] - 1 - suf]))
				goto suffix_done;
	}
suffix_done:
	for (size_t i = 0; i < pre && n < max; i++)
		out[n++] = s->chains[0][i];
	for (size_t i = suf; i > 0 && n < max; i--)
		out[n++] = s->chains[0][s->lens[0] - i];
	return n;
}

size_t dw_tailcall_chain(struct dw_module *from_m, uint64_t from, struct dw_module *to_m, uint64_t to,
			 const struct dw_tailcall_linker *linker, struct dw_tailcall *out, size_t max)
{
	struct search *s;
	size_t n = 0;

	if (!from || !to || (from_m == to_m && from == to))
		return 0;
	s = xcalloc(1, sizeof(*s));
	s->linker = linker;
	s->to_m = to_m;
	s->to = to;
	search_from(s, from_m, from, 0);
	if (s->n_chains == 1) {
		n = s->lens[0] < max ? s->lens[0] : max;
		memcpy(out, s->chains[0], n * sizeof(*out));
	} else if (s->n_chains > 1) {
		n = common_ends(s, out, max);
	}
	free(s);
	return n;
}

/* ---- gdb's rule for entry values ----
 *
 * gdb 13 resolves DW_OP_entry_value (and shows `x=x@entry=5`) only for a
 * function that cannot reach itself through tail calls, since a tail call
 * to itself would leave no frame to tell one entry from the next.  It
 * checks that on the tail calls it knows of, following them from the
 * function through every function they reach, and refuses as soon as one
 * of them is a tail call it cannot follow: through a pointer (its target
 * needs a frame, which a jumped-over function does not have), to a DIE
 * without an address (GCC names the abstract instance of a function that
 * is also inlined elsewhere), or to an address where no function with
 * debug information starts.  It knows of a function's tail calls only
 * when the function says its call sites are complete
 * (DW_AT_call_all_calls and the like), and only of call sites that carry
 * a return address (clang's tail calls give DW_AT_call_pc only, and gdb
 * 13 drops them).  A call to a function of another module (declared
 * here, defined there) is followed no further: gdb would continue in
 * that module, whose tail calls do not lead back here. */

static bool complete_sites(Dwarf_Die *fn)
{
	return dwarf_hasattr(fn, DW_AT_call_all_calls) || dwarf_hasattr(fn, DW_AT_call_all_tail_calls) ||
	       dwarf_hasattr(fn, DW_AT_GNU_all_call_sites) || dwarf_hasattr(fn, DW_AT_GNU_all_tail_call_sites);
}

/* gdb's entry address of function DIE @fn: its low pc, else the start
 * of its first range; 0 when it has no code. */
static uint64_t die_entry(Dwarf_Die *fn)
{
	Dwarf_Addr low, base, end;

	if (dwarf_lowpc(fn, &low) == 0)
		return low;
	return dwarf_ranges(fn, 0, &base, &low, &end) > 0 ? low : 0;
}

static void reach(struct gdb_node *g, uint64_t to)
{
	g->to = xgrow(g->to, &g->cap_to, g->n_to + 1, sizeof(*g->to));
	g->to[g->n_to++] = to;
}

struct gdb_collect {
	struct dw_module *m;
	struct gdb_node *g;
};

/* The functions tail call @cs reaches, as gdb names them; stops the walk
 * (true) at one gdb cannot follow. */
static bool gdb_edge(Dwarf_Die *cs, void *ctx)
{
	struct gdb_collect *c = ctx;
	Dwarf_Die origin;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	const char *name;
	uint64_t to;

	if (!is_tail_call(cs) || !return_pc(cs))
		return false;
	if (dwarf_hasattr(cs, DW_AT_call_target) || dwarf_hasattr(cs, DW_AT_GNU_call_site_target) ||
	    !call_origin(cs, &origin))
		return c->g->opaque = true;
	if (dwarf_hasattr_integrate(&origin, DW_AT_declaration) && !dwarf_hasattr(&origin, DW_AT_specification)) {
		name = function_name(&origin); /* by name, as the linker resolved it */
		if (!name)
			return c->g->opaque = true;
		if ((to = dw_function_entry(c->m, name)))
			reach(c->g, to);
		return false;
	}
	if (dwarf_hasattr(&origin, DW_AT_ranges)) {
		while ((off = dwarf_ranges(&origin, off, &base, &lo, &hi)) > 0)
			reach(c->g, lo);
		return false;
	}
	if (!(to = die_entry(&origin)))
		return c->g->opaque = true;
	reach(c->g, to);
	return false;
}

static const struct gdb_node *gdb_node_of(struct dw_module *m, uint64_t entry)
{
	struct tail_cache *c = cache_of(m);
	struct gdb_collect col = { .m = m };
	Dwarf_Die fn;

	for (size_t i = 0; i < c->n_gdb; i++)
		if (c->gdb[i].entry == entry)
			return &c->gdb[i];
	c->gdb = xgrow(c->gdb, &c->cap_gdb, c->n_gdb + 1, sizeof(*c->gdb));
	col.g = &c->gdb[c->n_gdb++];
	memset(col.g, 0, sizeof(*col.g));
	col.g->entry = entry;
	if (!function_die(m, entry, &fn) || die_entry(&fn) != entry)
		col.g->opaque = true;
	else if (complete_sites(&fn))
		walk_call_sites(&fn, gdb_edge, &col);
	return col.g;
}

/* Whether the tail calls from @entry, followed as gdb follows them, are
 * all known and never lead back to @entry. */
static bool verify_no_self_tailcall(struct dw_module *m, uint64_t entry)
{
	uint64_t *todo = NULL, *seen = NULL;
	size_t n_todo = 0, cap_todo = 0, n_seen = 0, cap_seen = 0;
	bool ok = true;

	todo = xgrow(todo, &cap_todo, 1, sizeof(*todo));
	todo[n_todo++] = entry;
	while (ok && n_todo) {
		uint64_t at = todo[--n_todo];
		size_t n_to = gdb_node_of(m, at)->n_to;

		ok = !gdb_node_of(m, at)->opaque;
		for (size_t i = 0; ok && i < n_to; i++) {
			/* (looked up again: the cache may grow meanwhile) */
			uint64_t to = gdb_node_of(m, at)->to[i];
			size_t k = 0;

			ok = to != entry;
			while (k < n_seen && seen[k] != to)
				k++;
			if (!ok || k < n_seen)
				continue;
			seen = xgrow(seen, &cap_seen, n_seen + 1, sizeof(*seen));
			seen[n_seen++] = to;
			todo = xgrow(todo, &cap_todo, n_todo + 1, sizeof(*todo));
			todo[n_todo++] = to;
		}
	}
	free(todo);
	free(seen);
	return ok;
}

/* The verdict of @decide on the function entered at @entry of @m, kept
 * in @v (@n of @cap) once decided. */
static bool cached_verdict(struct dw_module *m, uint64_t entry, struct verdict **v, size_t *n, size_t *cap,
			   bool (*decide)(struct dw_module *m, uint64_t entry))
{
	bool known;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].entry == entry)
			return (*v)[i].known;
	known = decide(m, entry);
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct verdict){ entry, known };
	return known;
}

bool dw_tailcall_entry_values(struct dw_module *m, uint64_t entry)
{
	struct tail_cache *c;

	if (!entry || !dw_module_dwarf(m))
		return false;
	c = cache_of(m);
	return cached_verdict(m, entry, &c->verdicts, &c->n_verdicts, &c->cap_verdicts, verify_no_self_tailcall);
}

/* ---- whether a function's entry is reached by calls only ---- */

/* A jump that may land on the entry @ctx (a uint64_t *): a direct jump or
 * branch to it, or an indirect jump (a table may hold it); a call pushes
 * its own return address, which names it: not a jump. */
static int jumps_to_entry(const struct x86insn *in, uint64_t at, void *ctx)
{
	uint64_t entry = *(const uint64_t *)ctx, target;

	if (x86insn_is_indirect_jump(in))
		return 1;
	return !(in->map == X86_MAP_ONE && in->opcode == 0xe8) && x86insn_branch_target(in, at, &target) &&
	       target == entry;
}

/* Whether no jump of the function entered at @entry may land there; its
 * code not read or decoded: not trusted. */
static bool only_called(struct dw_module *m, uint64_t entry)
{
	return dw_function_each_insn(m, entry, jumps_to_entry, &entry) == 0;
}

bool dw_entry_only_called(struct dw_module *m, uint64_t entry)
{
	struct tail_cache *c;

	if (!entry || !dw_module_dwarf(m))
		return false;
	c = cache_of(m);
	return cached_verdict(m, entry, &c->called, &c->n_called, &c->cap_called, only_called);
}

/* ---- what a function's first instructions wrote ---- */

/* The most code dw_entry_straight() follows: a prologue's pushes, its
 * stack adjustment and a few moves. */
#define STRAIGHT_MAX 128

/* A jump that may land in [@ctx[0], @ctx[1]] (two uint64_t): a direct
 * jump or branch there, or an indirect jump. */
static int jumps_into(const struct x86insn *in, uint64_t at, void *ctx)
{
	const uint64_t *span = ctx;
	uint64_t target;

	if (x86insn_is_indirect_jump(in))
		return 1;
	return !(in->map == X86_MAP_ONE && in->opcode == 0xe8) && x86insn_branch_target(in, at, &target) &&
	       target >= span[0] && target <= span[1];
}

/* DWARF numbers of the hardware's register numbers 0-15. */
static const uint8_t dwarf_of_hw[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };

static bool decide_straight(struct dw_module *m, uint64_t entry, uint64_t pc, uint32_t *written)
{
	uint64_t span[2] = { entry, pc }, at = entry;

	*written = 0;
	if (pc < entry || pc - entry > STRAIGHT_MAX || dw_function_each_insn(m, entry, jumps_into, span) != 0)
		return false;
	while (at < pc) {
		uint8_t code[X86_MAX_INSN];
		long got = dw_module_read_const(m, at, code, sizeof(code));
		struct x86insn in;
		uint16_t hw;

		if (got <= 0 || x86insn_decode(code, (size_t)got, &in) != 0 || !x86insn_gpr_writes(&in, &hw))
			return false;
		for (unsigned r = 0; r < 16; r++)
			if (hw & (1u << r))
				*written |= 1u << dwarf_of_hw[r];
		at += in.len;
	}
	return at == pc;
}

bool dw_entry_straight(struct dw_module *m, uint64_t entry, uint64_t pc, uint32_t *written)
{
	struct tail_cache *c;
	struct straight *s;

	if (!entry || !dw_module_dwarf(m))
		return false;
	c = cache_of(m);
	for (size_t i = 0; i < c->n_straight; i++)
		if (c->straight[i].entry == entry && c->straight[i].pc == pc) {
			*written = c->straight[i].written;
			return c->straight[i].known;
		}
	c->straight = xgrow(c->straight, &c->cap_straight, c->n_straight + 1, sizeof(*c->straight));
	s = &c->straight[c->n_straight++];
	s->entry = entry;
	s->pc = pc;
	s->known = decide_straight(m, entry, pc, &s->written);
	*written = s->written;
	return s->known;
}
