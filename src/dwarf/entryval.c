/* entryval.c - what a parameter held on entry to its function, recovered
 * from the caller (DW_OP_entry_value; see vars_entry_value in vars_priv.h).
 *
 * At -O2 a parameter's register is often reused after the function has
 * read it; its location then says only "the value register N had on
 * entry".  The caller knows more: each call site (DW_TAG_call_site) lists
 * the values it passed (DW_TAG_call_site_parameter with DW_AT_call_value),
 * described in the caller's own frame - a constant, a global's address,
 * something in a callee-saved register or on the caller's stack.  gdb
 * follows the frame's return address to its call site; a probe does the
 * same at run time: it reads the return address at CFA - 8, and the tree
 * built here compares it with the return address of every call site that
 * calls this function, taking the value that call site describes.  When
 * none matches (a caller without call-site information, a tail call, an
 * indirect call) the value is <optimized out>, as in gdb.
 *
 * The caller's registers are seen from inside the callee: a callee-saved
 * register either still holds the caller's value or was saved on the
 * callee's stack, as the callee's CFI at the probe says; a call-clobbered
 * one is lost.  The caller's CFA is the callee's CFA plus the caller's CFA
 * rule at the call (rsp-based), or its rbp plus the rule's offset.
 *
 * A call site may pass on what the caller itself only had on entry
 * (DW_OP_entry_value in DW_AT_call_value: f(x) calls g(x) and never needs
 * x again).  The caller's frame is then evaluated as the callee's was, one
 * call further out: its return address at its own CFA - 8 names its call
 * site, its registers are the callee's restored by the callee's CFI, and
 * so on for MAX_ENTRY_NESTING hand-offs.  Each level multiplies the tree
 * by its candidates, so levels past the first take fewer.
 *
 * Call sites are indexed once per module by the name of the function
 * they call (its linkage name, or its name); a wrong candidate that shares
 * the name is harmless, since its return address never matches.
 */
#include "arch/x86_64.h"
#include "dwarf/vars_priv.h"
#include "util/htab.h"
#include "util/idmap.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 64
#define MAX_ENTRY_NESTING 2 /* callers' callers followed for entry values */

struct call_entry {
	Dwarf *dw;
	Dwarf_Off off;      /* the call site DIE */
	uint32_t next;      /* the next call of the same callee, or NO_ENTRY */
};

#define NO_ENTRY UINT32_MAX

struct ret_entry {
	uint64_t return_pc;
	Dwarf *dw;
	Dwarf_Off off;      /* the call site DIE */
};

struct callers {
	struct call_entry *v;   /* in DIE order */
	size_t n, cap;
	/* callee name (borrowed) -> its first call in v; its last meanwhile */
	struct htab callees;
	uint32_t *last;         /* while building: first call -> last call */
	size_t cap_last;
	/* an origin DIE's offset + 1 -> its name, or (char *)1 for none */
	struct idmap keys;
	struct ret_entry *by_ret; /* every call site, by return address */
	size_t n_ret, cap_ret;
	bool built;
	Dwarf_CFI *cfi;     /* from .eh_frame; owned */
	bool cfi_tried;
	/* the names its dynamic symbol table holds (borrowed) -> DYNSYM_* */
	struct htab dynsyms;
	bool dynsyms_built, dynsyms_known;
};

#define DYNSYM_DEFINED 1u /* the module defines it (exports it) */
#define DYNSYM_NAMED 2u   /* defined or not: the module may call it by name */

static void callers_destroy(void *data)
{
	struct callers *cs = data;

	if (cs->cfi)
		dwarf_cfi_end(cs->cfi);
	free(cs->v);
	htab_release(&cs->callees);
	idmap_release(&cs->keys);
	free(cs->by_ret);
	htab_release(&cs->dynsyms);
	free(cs);
}

static struct callers *callers_of(struct dw_module *m)
{
	struct dw_ext *ext = &m->ext[DW_EXT_CALLERS];

	if (!ext->data) {
		ext->data = xcalloc(1, sizeof(struct callers));
		ext->destroy = callers_destroy;
	}
	return ext->data;
}

/* The name a function DIE is called by: linkage name, else its name,
 * through specifications and abstract origins.  Borrowed. */
static const char *function_key(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &a));

	return s ? s : dwarf_diename(fn);
}

/* ---- the index ---- */

static uint64_t return_pc(Dwarf_Die *site);

/* function_key() of the DIE @a refers to, asked once per DIE of the
 * module's own file (most callees are called from many sites). */
static const char *origin_key(struct callers *cs, Dwarf *dw, Dwarf_Attribute *a)
{
	Dwarf_Die origin;
	const char *key;
	uint64_t id;

	if (!dwarf_formref_die(a, &origin))
		return NULL;
	if (dwarf_cu_getdwarf(origin.cu) != dw) /* another file's offsets */
		return function_key(&origin);
	id = dwarf_dieoffset(&origin) + 1;
	key = idmap_get_ptr(&cs->keys, id);
	if (!key) {
		key = function_key(&origin);
		idmap_put_ptr(&cs->keys, id, key ? key : (const char *)1);
	}
	return key == (const char *)1 ? NULL : key;
}

static void add_site(struct callers *cs, Dwarf *dw, Dwarf_Die *site)
{
	Dwarf_Attribute a;
	struct htab_slot *slot;
	const char *key;
	uint32_t i;
	uint64_t ret = return_pc(site);

	if (ret) { /* direct or not: a frame's return address names it */
		cs->by_ret = xgrow(cs->by_ret, &cs->cap_ret, cs->n_ret + 1, sizeof(*cs->by_ret));
		cs->by_ret[cs->n_ret++] = (struct ret_entry){
			.return_pc = ret, .dw = dwarf_cu_getdwarf(site->cu), .off = dwarf_dieoffset(site),
		};
	}
	if ((!dwarf_attr(site, DW_AT_call_origin, &a) && !dwarf_attr(site, DW_AT_abstract_origin, &a)) ||
	    !(key = origin_key(cs, dw, &a)) || cs->n >= NO_ENTRY)
		return;
	i = (uint32_t)cs->n;
	cs->v = xgrow(cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v));
	cs->v[cs->n++] = (struct call_entry){
		.dw = dwarf_cu_getdwarf(site->cu), .off = dwarf_dieoffset(site), .next = NO_ENTRY,
	};
	cs->last = xgrow(cs->last, &cs->cap_last, cs->n, sizeof(*cs->last));
	slot = htab_get(&cs->callees, key, strlen(key), true);
	if (slot->key) {
		cs->v[cs->last[slot->val]].next = i;
	} else {
		slot->key = key;
		slot->val = i;
	}
	cs->last[slot->val] = i;
}

static void walk_sites(struct callers *cs, Dwarf *dw, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_NESTING || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
			add_site(cs, dw, &child);
		else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
			 tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace ||
			 tag == DW_TAG_structure_type || tag == DW_TAG_class_type)
			walk_sites(cs, dw, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_ret(const void *a, const void *b)
{
	uint64_t x = ((const struct ret_entry *)a)->return_pc, y = ((const struct ret_entry *)b)->return_pc;

	return x < y ? -1 : x > y;
}

static void build_index(struct callers *cs, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;

	cs->built = true;
	while (dw_next_unit(dw, &cu, &unit, false))
		walk_sites(cs, dw, &unit, 0);
	free(cs->last);
	cs->last = NULL;
	cs->cap_last = 0;
	idmap_release(&cs->keys);
	if (cs->n_ret)
		qsort(cs->by_ret, cs->n_ret, sizeof(*cs->by_ret), cmp_ret);
}

/* ---- call sites ---- */

static uint64_t return_pc(Dwarf_Die *site)
{
	Dwarf_Attribute a;
	Dwarf_Addr pc;

	if ((dwarf_attr(site, DW_AT_call_return_pc, &a) || dwarf_attr(site, DW_AT_low_pc, &a)) &&
	    dwarf_formaddr(&a, &pc) == 0)
		return pc;
	return 0;
}

/* Whether call site parameter @p is the one passed in register @reg,
 * or, for @reg < 0, the one that names the callee's parameter DIE at
 * @param (DW_AT_call_parameter, GCC's older DW_AT_abstract_origin: a
 * parameter of a clone, .constprop.0 or .part.0, that is passed in no
 * register, which the clone's DW_OP_GNU_parameter_ref refers to). */
static bool is_passed(Dwarf_Die *p, int reg, Dwarf_Off param)
{
	Dwarf_Attribute a;
	Dwarf_Die named;
	Dwarf_Op *ops;
	size_t n;

	if (reg < 0)
		return (dwarf_attr(p, DW_AT_call_parameter, &a) || dwarf_attr(p, DW_AT_abstract_origin, &a)) &&
		       dwarf_formref_die(&a, &named) && dwarf_dieoffset(&named) == param;
	return dwarf_attr(p, DW_AT_location, &a) && dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	       ops[0].atom == (uint8_t)(DW_OP_reg0 + reg);
}

/* The DW_AT_call_value of @site's parameter passed in register @reg, or
 * (@reg < 0) of the callee's parameter DIE at @param (is_passed()). */
static bool passed_value(Dwarf_Die *site, int reg, Dwarf_Off param, Dwarf_Attribute *value)
{
	Dwarf_Die child;

	if (dwarf_child(site, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if ((tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter) ||
		    !is_passed(&child, reg, param))
			continue;
		return dwarf_attr(&child, DW_AT_call_value, value) ||
		       dwarf_attr(&child, DW_AT_GNU_call_site_value, value);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The first of @m's indexed call sites that call the function named
 * @callee (the rest follow by .next), or NO_ENTRY. */
static uint32_t first_call(struct dw_module *m, const char *callee)
{
	struct callers *cs = callers_of(m);
	struct htab_slot *slot;

	if (!cs->built)
		build_index(cs, dw_module_dwarf(m));
	slot = htab_get(&cs->callees, callee, strlen(callee), false);
	return slot ? slot->val : NO_ENTRY;
}

/* Call sites of @m that call the function named @callee and say what
 * they pass in register @reg (or, @reg < 0, for the parameter DIE at
 * @param), after @n in @out; returns the new total. */
static size_t sites_calling(struct dw_module *m, const char *callee, int reg, Dwarf_Off param,
			    struct vars_call_site *out, size_t n, size_t max)
{
	struct callers *cs = callers_of(m);

	if (!callee || reg > 31 || (reg < 0 && !param) || !dw_module_dwarf(m))
		return n;
	for (uint32_t i = first_call(m, callee); i != NO_ENTRY && n < max; i = cs->v[i].next) {
		const struct call_entry *e = &cs->v[i];
		struct vars_call_site *s = &out[n];

		if (!dwarf_offdie(e->dw, e->off, &s->site) || !(s->return_pc = return_pc(&s->site)) ||
		    !passed_value(&s->site, reg, param, &s->value))
			continue;
		s->module = NULL;
		s->bias_delta = 0;
		n++;
	}
	return n;
}

size_t dw_call_returns(struct dw_module *m, const char *callee, uint64_t *out, size_t max)
{
	struct callers *cs = callers_of(m);
	size_t n = 0;

	if (!callee || !dw_module_dwarf(m))
		return 0;
	for (uint32_t i = first_call(m, callee); i != NO_ENTRY && n < max; i = cs->v[i].next) {
		const struct call_entry *e = &cs->v[i];
		Dwarf_Die site;

		/* a tail call leaves no frame that returns after it */
		if (dwarf_offdie(e->dw, e->off, &site) && !dwarf_hasattr(&site, DW_AT_call_tail_call) &&
		    !dwarf_hasattr(&site, DW_AT_GNU_tail_call) && (out[n] = return_pc(&site)))
			n++;
	}
	return n;
}

bool dw_module_has_call_sites(struct dw_module *m)
{
	struct callers *cs = callers_of(m);

	if (!dw_module_dwarf(m))
		return false;
	if (!cs->built)
		build_index(cs, dw_module_dwarf(m));
	return cs->n_ret > 0;
}

size_t vars_call_sites(struct vars_cache *c, Dwarf_Die *fn, int reg, struct vars_call_site *out,
		       size_t max)
{
	return sites_calling(c->m, function_key(fn), reg, 0, out, 0, max);
}

size_t vars_call_sites_param(struct vars_cache *c, Dwarf_Die *fn, Dwarf_Off param, struct vars_call_site *out,
			     size_t max)
{
	return sites_calling(c->m, function_key(fn), -1, param, out, 0, max);
}

/* Every name @m's dynamic symbol table holds, into cs->dynsyms;
 * cs->dynsyms_known false when the table cannot be read. */
static bool add_dynsym(const char *name, const GElf_Sym *sym, void *ctx)
{
	struct callers *cs = ctx;
	struct htab_slot *slot;

	if (!*name)
		return false;
	slot = htab_get(&cs->dynsyms, name, strlen(name), true);
	if (!slot->key) {
		slot->key = name;
		slot->len = strlen(name);
		slot->val = 0;
	}
	slot->val |= DYNSYM_NAMED | (sym->st_shndx != SHN_UNDEF ? DYNSYM_DEFINED : 0);
	return false;
}

/* The DYNSYM_* of @key in @m's dynamic symbol table, all of them when
 * the table cannot be read. */
static unsigned dynsym_flags(struct dw_module *m, const char *key)
{
	struct callers *cs = callers_of(m);
	struct htab_slot *slot;

	if (!cs->dynsyms_built) {
		cs->dynsyms_built = true;
		cs->dynsyms_known = dw_module_dynamic_symbols(m, add_dynsym, cs) == 0;
		/* an executable without one has no dynamic symbols; else the
		 * file is unread */
		if (m->elf && !cs->dynsyms_known) {
			GElf_Ehdr eh;

			cs->dynsyms_known = gelf_getehdr(m->elf, &eh) && eh.e_type == ET_EXEC;
		}
	}
	if (!cs->dynsyms_known)
		return DYNSYM_DEFINED | DYNSYM_NAMED;
	slot = htab_get(&cs->dynsyms, key, strlen(key), false);
	return slot ? slot->val : 0;
}

/* Whether another module's direct call can reach @m's function @key: only
 * through the dynamic linker, so only one @m's dynamic symbol table
 * defines (true when that cannot be told). */
static bool callable_from_outside(struct dw_module *m, const char *key)
{
	return dynsym_flags(m, key) & DYNSYM_DEFINED;
}

/* Whether @m's code can call another module's function @key directly:
 * only through the dynamic linker, by a name its dynamic symbol table
 * holds (undefined there, or defined and interposed); a call site of @m
 * naming a function @key that table lacks calls @m's own function of
 * that name (static, hidden), never another module's. */
static bool calls_out_by_name(struct dw_module *m, const char *key)
{
	return dynsym_flags(m, key) & DYNSYM_NAMED;
}

size_t vars_foreign_call_sites(struct vars_cache *c, Dwarf_Die *fn, int reg, struct vars_call_site *out,
			       size_t n, size_t max)
{
	const char *key = function_key(fn);
	struct dw_module *other;
	int64_t delta;

	/* a function no other module can call by name: not their call sites
	 * (reading their DWARF cost a probe of many sites a sixth of its
	 * start-up, libc's separate debug file decompressed for nothing) */
	if (!key || !callable_from_outside(c->m, key))
		return n;
	for (size_t i = 0; c->caller_modules && n < max &&
			   c->caller_modules(c->caller_modules_ctx, c->m, i, &other, &delta); i++) {
		size_t from = n;

		/* a module that cannot call it by name: its DWARF unread (libc's
		 * call sites indexed for Redis's exported functions cost a
		 * probe of many sites a twentieth of its start-up) */
		if (other == c->m || !calls_out_by_name(other, key))
			continue;
		n = sites_calling(other, key, reg, 0, out, n, max);
		for (size_t k = from; k < n; k++) {
			out[k].module = other;
			out[k].bias_delta = delta;
		}
	}
	return n;
}

void dw_module_set_caller_modules(struct dw_module *m, dw_caller_modules fn, void *ctx)
{
	struct vars_cache *c = vars_cache_of(m);

	c->caller_modules = fn;
	c->caller_modules_ctx = ctx;
}

/* ---- the caller's frame, seen from the callee ---- */

static Dwarf_CFI *cfi_of(struct dw_module *m)
{
	struct callers *cs = callers_of(m);

	if (!cs->cfi_tried) {
		cs->cfi_tried = true;
		cs->cfi = dwarf_getcfi_elf(dw_module_elf(m));
	}
	return cs->cfi;
}

/* Register @reg of frame @f as a tree: the probe's own, or its caller's. */
static const struct dw_expr *frame_reg(struct vars_cache *c, const struct vars_frame *f, int reg)
{
	return f->caller_reg ? f->caller_reg(c, f, reg) : vars_expr_reg(c, reg);
}

/* CFI expression @ops (a location relative to frame @f's CFA) as an
 * address tree; NULL when it is not one. */
static const struct dw_expr *cfi_address(struct vars_cache *c, const struct vars_frame *f,
					 Dwarf_Op *ops, size_t n)
{
	struct dw_loc loc;

	vars_evaluate(c, NULL, ops, n, f, &loc);
	return vars_loc_address(c, &loc);
}

/* The register @reg of the caller of frame @callee, at @callee's pc:
 * still in the register (the callee left it alone), or saved on the
 * callee's stack; NULL for a register the call clobbers. */
static const struct dw_expr *caller_reg(struct vars_cache *c, const struct vars_frame *callee, int reg)
{
	Dwarf_CFI *cfi = cfi_of(c->m);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;
	const struct dw_expr *r = NULL;

	if (reg == X86_DWARF_rsp) /* the caller's stack pointer after the return */
		return callee->cfa;
	/* only the registers a probe reads can be followed */
	if (!cfi || reg < 0 || reg >= X86_DWARF_NREGS || dwarf_cfi_addrframe(cfi, callee->pc, &frame) != 0)
		return NULL;
	if (dw_cfi_register(frame, reg, mem, &ops, &n) == 0) {
		if (n == 0 && !ops)
			r = frame_reg(c, callee, reg); /* same value */
		else if (n > 0 && ops[n - 1].atom != DW_OP_stack_value &&
			 (r = cfi_address(c, callee, ops, n)))
			r = vars_expr_deref(c, r, 8);
	}
	free(frame);
	return r;
}

static const struct dw_expr *frame_caller_reg(struct vars_cache *c, const struct vars_frame *f, int reg)
{
	return caller_reg(c, f->inner, reg);
}

/* The CFA of @callee's caller: its CFA rule at the call, with the
 * caller's rsp after the return being the callee's CFA. */
static const struct dw_expr *caller_cfa(struct vars_cache *c, const struct vars_frame *callee,
					struct dw_module *caller, uint64_t ret_pc)
{
	Dwarf_CFI *cfi = cfi_of(caller ? caller : c->m);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	const struct dw_expr *r = NULL, *base;

	/* the row of the call itself: the return address may start a new one */
	if (!cfi || !callee->cfa || dwarf_cfi_addrframe(cfi, ret_pc - 1, &frame) != 0)
		return NULL;
	/* libdw gives a register rule as DW_OP_bregx */
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
	    (ops[0].atom == DW_OP_breg7 || ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_bregx)) {
		int reg = ops[0].atom == DW_OP_bregx ? (int)ops[0].number : ops[0].atom - DW_OP_breg0;
		int64_t off = (int64_t)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);

		base = reg == X86_DWARF_rsp   ? callee->cfa
		       : reg == X86_DWARF_rbp ? caller_reg(c, callee, X86_DWARF_rbp)
					      : NULL;
		if (base)
			r = vars_expr_add(c, base, off);
	}
	free(frame);
	return r;
}

const struct dw_expr *vars_caller_value(struct vars_cache *c, const struct vars_call_site *s,
					const struct vars_frame *callee)
{
	uint64_t call_pc = s->return_pc - 1;
	struct vars_frame f = { .pc = call_pc, .caller_reg = frame_caller_reg, .inner = callee,
				.depth = callee->depth + 1, .module = s->module, .bias_delta = s->bias_delta };
	Dwarf_Attribute value = s->value;
	Dwarf_Die cudie, fn;
	Dwarf_Op *ops;
	const char *why;
	struct dw_loc loc;
	size_t n;

	if (dwarf_getlocation(&value, &ops, &n) != 0 || n == 0)
		return NULL;
	f.cfa = caller_cfa(c, callee, s->module, s->return_pc);
	if (dwarf_diecu((Dwarf_Die *)&s->site, &cudie, NULL, NULL) &&
	    dw_pc_scopes(&cudie, call_pc, &fn, 1) == 1) {
		f.fb = vars_frame_base(c, &fn, call_pc, &f, &why);
		/* a value the caller itself only had on entry: its own callers
		 * say (gdb follows such chains too); those of a caller in
		 * another module are not looked for */
		if (f.depth <= MAX_ENTRY_NESTING && !s->module)
			f.fn = &fn;
	}
	vars_evaluate(c, &value, ops, n, &f, &loc);
	/* a DWARF expression, not a location: what it computes is the value */
	switch (loc.kind) {
	case DW_LOC_CONST:
		return vars_expr_const(c, loc.offset);
	case DW_LOC_VALUE_REG:
		return vars_expr_add(c, vars_expr_reg(c, loc.reg), loc.offset);
	case DW_LOC_VALUE_EXPR:
		return loc.expr;
	default:
		return vars_loc_address(c, &loc);
	}
}

/* ---- a call site by the return address a frame holds ---- */

/* DWARF expression @value (a call value or target) in the frame @f of
 * the caller, as the value it computes. */
static void caller_expr(struct vars_cache *c, Dwarf_Attribute *value, const struct vars_frame *f,
			struct dw_loc *out)
{
	Dwarf_Op *ops;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->kind = DW_LOC_OPTIMIZED_OUT;
	if (dwarf_getlocation(value, &ops, &n) != 0 || n == 0)
		return;
	vars_evaluate(c, value, ops, n, f, out);
	switch (out->kind) { /* what it computes is the value */
	case DW_LOC_MEM_REG:
	case DW_LOC_MEM_CFA:
	case DW_LOC_MEM_ADDR:
	case DW_LOC_MEM_EXPR:
		out->expr = vars_loc_address(c, out);
		out->kind = DW_LOC_VALUE_EXPR;
		out->offset = 0;
		break;
	default:
		break;
	}
}

int dw_call_site_value(struct dw_module *m, uint64_t return_pc, int reg, const struct dw_entry_values *entry,
		       struct dw_call_site *out)
{
	struct vars_cache *c;
	struct callers *cs;
	struct ret_entry key = { .return_pc = return_pc }, *e;
	struct vars_frame f = { .pc = return_pc - 1, .entry = entry };
	Dwarf_Attribute value, a;
	Dwarf_Die site, cudie, fn, origin;
	const char *why;

	memset(out, 0, sizeof(*out));
	out->target.kind = out->value.kind = DW_LOC_OPTIMIZED_OUT;
	if (!dw_module_dwarf(m) || reg < 0 || reg > 31)
		return -ENOENT;
	c = vars_cache_of(m);
	cs = callers_of(m);
	if (!cs->built)
		build_index(cs, dw_module_dwarf(m));
	e = cs->n_ret ? bsearch(&key, cs->by_ret, cs->n_ret, sizeof(*e), cmp_ret) : NULL;
	if (!e || !dwarf_offdie(e->dw, e->off, &site) || !passed_value(&site, reg, 0, &value))
		return -ENOENT;
	f.cfa = vars_expr_cfa(c);
	if (dwarf_diecu(&site, &cudie, NULL, NULL) && dw_pc_scopes(&cudie, f.pc, &fn, 1) == 1) {
		f.fb = vars_frame_base(c, &fn, f.pc, &f, &why);
		/* what the caller passed on from its own entry: @entry or its
		 * callers say, by its return address (gdb follows such chains
		 * too) */
		f.fn = &fn;
	}
	if ((dwarf_attr(&site, DW_AT_call_origin, &a) || dwarf_attr(&site, DW_AT_abstract_origin, &a)) &&
	    dwarf_formref_die(&a, &origin))
		out->callee = function_key(&origin);
	else if (dwarf_attr(&site, DW_AT_call_target, &a) || dwarf_attr(&site, DW_AT_GNU_call_site_target, &a))
		caller_expr(c, &a, &f, &out->target);
	caller_expr(c, &value, &f, &out->value);
	return out->value.kind == DW_LOC_UNSUPPORTED || out->value.kind == DW_LOC_OPTIMIZED_OUT ? -ENOENT : 0;
}

bool dw_function_at(struct dw_module *m, uint64_t pc, const char **key, uint64_t *entry)
{
	Dwarf_Die cudie, fn;
	Dwarf_Addr lo;

	if (!dw_module_dwarf(m) || !dw_unit_at(m, pc, &cudie) || dw_pc_scopes(&cudie, pc, &fn, 1) != 1 ||
	    !dw_die_entry_pc(&fn, &lo))
		return false;
	*key = function_key(&fn);
	*entry = lo;
	return *key != NULL;
}
