/* cfi.c - compact unwind rows from .eh_frame and .debug_frame (see cfi.h).
 *
 * libdw's dwarf_cfi_addrframe() re-runs an FDE's program from its start for
 * every row it returns, which is quadratic per FDE and dominates on large
 * libraries.  So libdw only splits a section into CIEs and FDEs
 * (dwarf_next_cfi) and we run each FDE program ourselves, once, tracking
 * just the columns the BPF unwinder carries: the CFA, the return address
 * and rbp.  FDEs are sorted by start first, so rows arrive in pc order and
 * push_row() does the rest as they are appended: a row at the same pc as
 * the previous one replaces it, a row with the previous rule is dropped, an
 * FDE that overlaps an earlier one only contributes from the earlier one's
 * end, and every FDE ends with a gap row that the next FDE's first row
 * replaces when the two touch.
 *
 * Translation into struct wr_cfi_rule:
 * - CFA must be rsp or rbp plus an s32 offset, or exactly
 *   `DW_OP_breg6 N; DW_OP_deref` (GCC's realigned main, WR_CFA_DEREF);
 *   anything else (r10 during realignment, the rip-based PLT expression)
 *   makes the row WR_ROW_UNSUPPORTED.
 * - The return address must be offset(N) (s16) or undefined; any other rule,
 *   or none at all, makes the row unsupported.
 * - rbp only matters when a later frame's CFA is rbp-based, and the
 *   unwinder tracks whether it still knows rbp.  So an rbp rule with no
 *   compact form (an expression, such as realigned main's `*(rbp)`, a
 *   register other than rsp/rbp, an offset beyond s16) becomes
 *   WR_RULE_UNDEFINED, "caller's rbp unknown", instead of failing the row.
 *   register(rsp) is WR_RULE_REGISTER with WR_DWARF_RSP in rbp_off (the
 *   caller's rbp is this frame's rsp); register(rbp) and an unspecified rbp
 *   are WR_RULE_SAME_VALUE.
 * - Every row of an FDE whose CIE augmentation has 'S' (glibc's
 *   __restore_rt) is WR_ROW_SIGNAL; its expressions are not looked at.
 * - A malformed program turns the rest of its FDE into unsupported rows.
 *
 * Where the rows come from: the main file's .eh_frame; .debug_frame of the
 * main file, or failing that of the separate debug file (see
 * open_debug_frame()), fills the pcs .eh_frame leaves uncovered.  Both are
 * read from the ELF sections, so a file without section headers has no
 * rows.  FDEs that do not start in an executable PT_LOAD segment
 * (.debug_frame keeps FDEs of discarded sections at address 0) or that end
 * beyond the 32-bit row pc are skipped.
 */
#include "dwarf/cfi.h"
#include "dwarf/module_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

/* ======================================================================
 * The rule table
 * ====================================================================== */

/* Open addressing over rule indices; a slot holds index + 1, 0 is empty. */
struct rule_index {
	uint32_t *slot;
	size_t mask;
};

/* A rule as two words with its reserved bytes (13..15) cleared.  Words,
 * not bytes, keep the per-row lookup free of partial-store stalls. */
#define RULE_HI_MASK 0x000000ffffffffffull
_Static_assert(offsetof(struct wr_cfi_rule, reserved) == 13 && sizeof(struct wr_cfi_rule) == 16,
	       "rule words");

static void rule_words(const struct wr_cfi_rule *rule, uint64_t w[2])
{
	memcpy(w, rule, 16);
	w[1] &= RULE_HI_MASK;
}

static uint64_t hash_words(const uint64_t w[2])
{
	uint64_t h = w[0] * 0x9e3779b97f4a7c15ull ^ (w[1] + 0x632be59bd9b4e019ull) * 0xff51afd7ed558ccdull;

	return h ^ (h >> 29);
}

static void rehash(struct cfi_rules *r, size_t nslots)
{
	struct rule_index *ix = r->index;

	free(ix->slot);
	ix->slot = xcalloc(nslots, sizeof(*ix->slot));
	ix->mask = nslots - 1;
	for (size_t i = 0; i < r->n; i++) {
		uint64_t w[2];
		size_t s;

		rule_words(&r->v[i], w);
		for (s = hash_words(w) & ix->mask; ix->slot[s]; s = (s + 1) & ix->mask)
			;
		ix->slot[s] = (uint32_t)(i + 1);
	}
}

void cfi_rules_init(struct cfi_rules *r)
{
	memset(r, 0, sizeof(*r));
}

void cfi_rules_release(struct cfi_rules *r)
{
	struct rule_index *ix = r->index;

	if (ix)
		free(ix->slot);
	free(ix);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

uint32_t cfi_rules_intern(struct cfi_rules *r, const struct wr_cfi_rule *rule)
{
	struct rule_index *ix = r->index;
	uint64_t w[2], v[2];
	size_t s;

	rule_words(rule, w);
	if (!ix) {
		r->index = ix = xcalloc(1, sizeof(*ix));
		rehash(r, 64);
	} else if ((r->n + 1) * 2 > ix->mask + 1) {
		rehash(r, (ix->mask + 1) * 2);
	}
	for (s = hash_words(w) & ix->mask; ix->slot[s]; s = (s + 1) & ix->mask) {
		memcpy(v, &r->v[ix->slot[s] - 1], 16);
		if (v[0] == w[0] && v[1] == w[1])
			return ix->slot[s] - 1;
	}
	r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	memcpy(&r->v[r->n++], w, 16);
	ix->slot[s] = (uint32_t)r->n;
	return (uint32_t)(r->n - 1);
}

/* ======================================================================
 * Tables
 * ====================================================================== */

void cfi_table_init(struct cfi_table *t)
{
	memset(t, 0, sizeof(*t));
	t->source = "none";
}

void cfi_table_release(struct cfi_table *t)
{
	free(t->rows);
	cfi_table_init(t);
}

/* Append a row in pc order (see the top of the file); every call counts
 * in rows_raw. */
static void push_row(struct cfi_table *t, uint32_t pc, uint32_t rule)
{
	t->stats.rows_raw++;
	while (t->n && t->rows[t->n - 1].pc >= pc) {
		if (t->rows[t->n - 1].pc > pc)
			return; /* out of order: an earlier row already covers pc */
		t->n--;
	}
	if (t->n ? t->rows[t->n - 1].rule == rule : rule == WR_CFI_RULE_NONE)
		return;
	if (t->n == t->cap)
		t->rows = xgrow(t->rows, &t->cap, t->n + 1, sizeof(*t->rows));
	t->rows[t->n].pc = pc;
	t->rows[t->n].rule = rule;
	t->n++;
}

/* ======================================================================
 * Reading the section
 * ====================================================================== */

struct cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

static inline uint64_t read_uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static inline int64_t read_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

/* Little-endian @n-byte value (the module is x86-64). */
static uint64_t read_fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

/* One CFI section's bytes and where they sit in the address space. */
struct cfi_section {
	const char *name;
	Elf_Data *data;
	const uint8_t *buf;
	uint64_t vaddr;            /* sh_addr, the base of DW_EH_PE_pcrel */
	bool eh;
	const unsigned char *ident;
};

/* A DW_EH_PE_* value; only absolute and pc-relative ones occur in x86-64
 * FDE headers, the rest are reported as unreadable. */
static bool read_encoded(struct cursor *c, uint8_t enc, const struct cfi_section *s,
			 uint64_t *out)
{
	uint64_t field = s->vaddr + (uint64_t)(c->p - s->buf);
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8: v = read_fixed(c, 8); break;
	case DW_EH_PE_udata4: v = (uint32_t)read_fixed(c, 4); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)read_fixed(c, 4); break;
	case DW_EH_PE_udata2: v = (uint16_t)read_fixed(c, 2); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)read_fixed(c, 2); break;
	case DW_EH_PE_uleb128: v = read_uleb(c); break;
	case DW_EH_PE_sleb128: v = (uint64_t)read_sleb(c); break;
	default: return false;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: break;
	case DW_EH_PE_pcrel: v += field; break;
	default: return false;
	}
	*out = v;
	return !c->bad;
}

/* ======================================================================
 * The CFA program interpreter
 * ====================================================================== */

/* How a column is recovered, as far as the program said. */
enum how {
	H_UNSPEC,
	H_UNDEF,
	H_SAME,
	H_OFFSET,     /* at CFA + off */
	H_VAL_OFFSET, /* CFA + off */
	H_REGISTER,   /* in register off */
	H_EXPR,
};

enum cfa_how {
	CFA_REG,       /* cfa_reg + cfa_off */
	CFA_DEREF_RBP, /* *(rbp + cfa_off) */
	CFA_EXPR,      /* anything else */
};

struct col {
	int64_t off;
	uint8_t how;
};

struct state {
	int64_t cfa_off;
	uint64_t cfa_reg;
	uint8_t cfa_how;
	struct col ra;
	struct col rbp;
};

struct cie {
	Dwarf_Off off;
	uint64_t caf;
	int64_t daf;
	uint64_t ra_reg;
	uint8_t fde_enc;
	bool aug_z;
	bool signal;
	bool usable;              /* augmentation understood */
	struct state init;        /* after the initial instructions */
};

#define STATE_STACK_DEPTH 32

struct interp {
	const struct cie *cie;
	const struct cfi_section *sec;
	struct cfi_rules *rules;
	struct cfi_table *t;      /* NULL while running a CIE */
	uint64_t loc;
	uint64_t end;
	uint64_t clip_lo;         /* rows below this pc belong to an earlier FDE */
	uint32_t rule;            /* interned rule of st, valid unless dirty */
	bool dirty;
	unsigned depth;
	struct state st;
	struct state stack[STATE_STACK_DEPTH];
};

static bool fits_s16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void convert_rbp(const struct col *c, struct wr_cfi_rule *r)
{
	r->rbp_rule = WR_RULE_UNDEFINED;
	switch (c->how) {
	case H_UNSPEC:
	case H_SAME:
		r->rbp_rule = WR_RULE_SAME_VALUE;
		break;
	case H_OFFSET:
	case H_VAL_OFFSET:
		if (fits_s16(c->off)) {
			r->rbp_rule = c->how == H_OFFSET ? WR_RULE_AT_CFA : WR_RULE_VAL_CFA;
			r->rbp_off = (int16_t)c->off;
		}
		break;
	case H_REGISTER:
		if (c->off == WR_DWARF_RBP) {
			r->rbp_rule = WR_RULE_SAME_VALUE;
		} else if (c->off == WR_DWARF_RSP) {
			r->rbp_rule = WR_RULE_REGISTER;
			r->rbp_off = WR_DWARF_RSP;
		}
		break;
	default:
		break;
	}
}

/* Compact form of @st, or false when the row is unsupported. */
static bool convert(const struct state *st, struct wr_cfi_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (!fits_s32(st->cfa_off))
		return false;
	if (st->cfa_how == CFA_REG && (st->cfa_reg == WR_DWARF_RSP || st->cfa_reg == WR_DWARF_RBP))
		r->cfa_reg = (uint8_t)st->cfa_reg;
	else if (st->cfa_how == CFA_DEREF_RBP)
		r->cfa_reg = WR_DWARF_RBP, r->cfa_kind = WR_CFA_DEREF;
	else
		return false;
	r->cfa_off = (int32_t)st->cfa_off;
	if (st->ra.how == H_OFFSET && fits_s16(st->ra.off)) {
		r->ra_rule = WR_RULE_AT_CFA;
		r->ra_off = (int16_t)st->ra.off;
	} else if (st->ra.how == H_UNDEF) {
		r->ra_rule = WR_RULE_UNDEFINED;
	} else {
		return false;
	}
	convert_rbp(&st->rbp, r);
	r->kind = WR_ROW_NORMAL;
	return true;
}

static uint32_t current_rule(struct interp *ip)
{
	struct wr_cfi_rule r;

	if (!ip->dirty)
		return ip->rule;
	if (ip->cie->signal) {
		memset(&r, 0, sizeof(r));
		r.kind = WR_ROW_SIGNAL;
	} else if (!convert(&ip->st, &r)) {
		memset(&r, 0, sizeof(r));
		r.kind = WR_ROW_UNSUPPORTED;
	}
	ip->rule = cfi_rules_intern(ip->rules, &r);
	ip->dirty = false;
	return ip->rule;
}

/* The row for [loc, next location). */
static void emit(struct interp *ip, uint32_t rule)
{
	uint64_t pc = ip->loc < ip->clip_lo ? ip->clip_lo : ip->loc;

	if (ip->t && pc < ip->end)
		push_row(ip->t, (uint32_t)pc, rule);
}

/* Returns 1 once the location reaches the FDE's end (the rest of the
 * program cannot produce rows), 0 otherwise. */
static int advance_to(struct interp *ip, uint64_t loc)
{
	if (!ip->t)
		return 0;
	if (loc < ip->loc)
		return -1;
	if (loc > ip->loc) {
		emit(ip, current_rule(ip));
		ip->loc = loc;
	}
	return ip->loc >= ip->end;
}

/* @v times a data alignment factor; wraps instead of overflowing, the
 * result is range-checked when the row is converted. */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

static struct col *column(struct interp *ip, uint64_t reg)
{
	if (reg == ip->cie->ra_reg)
		return &ip->st.ra;
	if (reg == WR_DWARF_RBP)
		return &ip->st.rbp;
	return NULL;
}

static void set_col(struct interp *ip, uint64_t reg, uint8_t how, int64_t off)
{
	struct col *c = column(ip, reg);

	if (c) {
		c->how = how;
		c->off = off;
		ip->dirty = true;
	}
}

static void restore_col(struct interp *ip, uint64_t reg)
{
	struct col *c = column(ip, reg);

	if (c) {
		*c = reg == ip->cie->ra_reg ? ip->cie->init.ra : ip->cie->init.rbp;
		ip->dirty = true;
	}
}

/* The block of a DW_CFA_*expression; recognises realigned main's CFA. */
static void exec_cfa_expression(struct interp *ip, struct cursor *c)
{
	uint64_t len = read_uleb(c);
	struct cursor e = { c->p, c->p, false };

	if (len > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	e.end = c->p + len;
	c->p += len;
	ip->st.cfa_how = CFA_EXPR;
	ip->dirty = true;
	if (len >= 3 && e.p[0] == DW_OP_breg6 && e.end[-1] == DW_OP_deref) {
		int64_t off;

		e.p++;
		e.end--;
		off = read_sleb(&e);
		if (!e.bad && e.p == e.end) {
			ip->st.cfa_how = CFA_DEREF_RBP;
			ip->st.cfa_off = off;
		}
	}
}

static void skip_block(struct cursor *c)
{
	uint64_t len = read_uleb(c);

	if (len > (uint64_t)(c->end - c->p))
		c->bad = true;
	else
		c->p += len;
}

/* Operations on the CFA rule. */
static int exec_cfa(struct interp *ip, struct cursor *c, uint8_t op)
{
	int64_t daf = ip->cie->daf;

	ip->dirty = true;
	switch (op) {
	case DW_CFA_def_cfa:
		ip->st.cfa_reg = read_uleb(c);
		ip->st.cfa_off = (int64_t)read_uleb(c);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_sf:
		ip->st.cfa_reg = read_uleb(c);
		ip->st.cfa_off = scaled((uint64_t)read_sleb(c), daf);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_register:
		ip->st.cfa_reg = read_uleb(c);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		/* only meaningful for a register rule: keep others unsupported */
		if (ip->st.cfa_how != CFA_REG)
			ip->st.cfa_how = CFA_EXPR;
		if (op == DW_CFA_def_cfa_offset)
			ip->st.cfa_off = (int64_t)read_uleb(c);
		else
			ip->st.cfa_off = scaled((uint64_t)read_sleb(c), daf);
		break;
	default: /* DW_CFA_def_cfa_expression */
		exec_cfa_expression(ip, c);
		break;
	}
	return 0;
}

/* Operations on one register's rule. */
static int exec_reg(struct interp *ip, struct cursor *c, uint8_t op)
{
	int64_t daf = ip->cie->daf;
	uint64_t reg = read_uleb(c);

	switch (op) {
	case DW_CFA_offset_extended:
		set_col(ip, reg, H_OFFSET, scaled(read_uleb(c), daf));
		break;
	case DW_CFA_offset_extended_sf:
		set_col(ip, reg, H_OFFSET, scaled((uint64_t)read_sleb(c), daf));
		break;
	case DW_CFA_GNU_negative_offset_extended:
		set_col(ip, reg, H_OFFSET, scaled(0 - read_uleb(c), daf));
		break;
	case DW_CFA_val_offset:
		set_col(ip, reg, H_VAL_OFFSET, scaled(read_uleb(c), daf));
		break;
	case DW_CFA_val_offset_sf:
		set_col(ip, reg, H_VAL_OFFSET, scaled((uint64_t)read_sleb(c), daf));
		break;
	case DW_CFA_restore_extended: restore_col(ip, reg); break;
	case DW_CFA_undefined: set_col(ip, reg, H_UNDEF, 0); break;
	case DW_CFA_same_value: set_col(ip, reg, H_SAME, 0); break;
	case DW_CFA_register: set_col(ip, reg, H_REGISTER, (int64_t)read_uleb(c)); break;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		skip_block(c);
		set_col(ip, reg, H_EXPR, 0);
		break;
	default:
		return -1;
	}
	return 0;
}

static int exec_state(struct interp *ip, uint8_t op)
{
	if (op == DW_CFA_remember_state) {
		if (ip->depth == STATE_STACK_DEPTH)
			return -1;
		ip->stack[ip->depth++] = ip->st;
		return 0;
	}
	if (ip->depth == 0)
		return -1;
	ip->st = ip->stack[--ip->depth];
	ip->dirty = true;
	return 0;
}

/* One operation that is not a primary (advance_loc/offset/restore) one.
 * Returns 1 when the program can stop, 0 to go on, -1 when malformed. */
static int exec_op(struct interp *ip, struct cursor *c, uint8_t op)
{
	uint64_t caf = ip->cie->caf, loc;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_GNU_args_size:
		read_uleb(c);
		return 0;
	case DW_CFA_set_loc:
		if (!read_encoded(c, ip->sec->eh ? ip->cie->fde_enc : DW_EH_PE_absptr, ip->sec, &loc))
			return -1;
		return advance_to(ip, loc);
	case DW_CFA_advance_loc1: return advance_to(ip, ip->loc + read_fixed(c, 1) * caf);
	case DW_CFA_advance_loc2: return advance_to(ip, ip->loc + read_fixed(c, 2) * caf);
	case DW_CFA_advance_loc4: return advance_to(ip, ip->loc + read_fixed(c, 4) * caf);
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return exec_cfa(ip, c, op);
	case DW_CFA_remember_state:
	case DW_CFA_restore_state:
		return exec_state(ip, op);
	default:
		return exec_reg(ip, c, op);
	}
}

/* Run @c to its end or to the FDE's end.  Returns 0 or -1 (malformed). */
static int run_program(struct interp *ip, struct cursor *c)
{
	int rc = 0;

	while (c->p < c->end && rc == 0) {
		uint8_t op = *c->p++;

		switch (op >> 6) {
		case 1:
			rc = advance_to(ip, ip->loc + (op & 0x3f) * ip->cie->caf);
			break;
		case 2:
			set_col(ip, op & 0x3f, H_OFFSET, scaled(read_uleb(c), ip->cie->daf));
			break;
		case 3:
			restore_col(ip, op & 0x3f);
			break;
		default:
			rc = exec_op(ip, c, op);
			break;
		}
		if (c->bad)
			rc = -1;
	}
	return rc < 0 ? -1 : 0;
}

/* ======================================================================
 * CIEs and FDEs
 * ====================================================================== */

/* Kept small: libLLVM has over 100,000 of these. */
struct fde {
	uint32_t start;           /* pcs fit 32 bits, see add_fde() */
	uint32_t end;
	const uint8_t *ins;
	uint32_t ins_len;
	uint32_t cie;             /* index into extract.cies */
};

/* The state of one section's extraction. */
struct extract {
	struct dw_module *m;
	struct cfi_rules *rules;
	struct cfi_section sec;
	struct cie *cies;
	size_t n_cies, cap_cies;
	bool cies_sorted;
	size_t last_cie;
	struct fde *fdes;
	size_t n_fdes, cap_fdes;
	int err;
};

/* Walk the augmentation string for what FDEs need: the pointer encoding
 * ('R') and the signal-frame mark ('S'). */
static bool parse_augmentation(struct cie *cie, const Dwarf_CIE *dc, const struct cfi_section *s)
{
	const char *a = dc->augmentation;
	struct cursor c = { dc->augmentation_data,
			    dc->augmentation_data + dc->augmentation_data_size, false };
	uint64_t ignored;

	cie->fde_enc = DW_EH_PE_absptr;
	if (a[0] == '\0')
		return true;
	if (a[0] != 'z')
		return false;
	cie->aug_z = true;
	for (a++; *a; a++) {
		if (*a == 'R') {
			cie->fde_enc = (uint8_t)read_fixed(&c, 1);
		} else if (*a == 'L') {
			read_fixed(&c, 1);
		} else if (*a == 'P') {
			uint8_t enc = (uint8_t)read_fixed(&c, 1);

			if (!read_encoded(&c, enc & 0x7f, s, &ignored))
				return false;
		} else if (*a == 'S') {
			cie->signal = true;
		} else if (*a != 'B' && *a != 'G') {
			return false;
		}
	}
	return !c.bad;
}

static void add_cie(struct extract *x, Dwarf_Off off, const Dwarf_CIE *dc)
{
	struct cie *cie;
	struct interp ip;
	struct cursor c = { dc->initial_instructions, dc->initial_instructions_end, false };

	x->cies = xgrow(x->cies, &x->cap_cies, x->n_cies + 1, sizeof(*x->cies));
	if (x->n_cies && x->cies[x->n_cies - 1].off > off)
		x->cies_sorted = false;
	cie = &x->cies[x->n_cies++];
	memset(cie, 0, sizeof(*cie));
	cie->off = off;
	cie->caf = dc->code_alignment_factor;
	cie->daf = dc->data_alignment_factor;
	cie->ra_reg = dc->return_address_register;
	cie->usable = parse_augmentation(cie, dc, &x->sec);
	cie->init.cfa_how = CFA_EXPR; /* no CFA rule yet: unsupported */
	memset(&ip, 0, sizeof(ip));
	ip.cie = cie;
	ip.sec = &x->sec;
	ip.st = cie->init;
	if (cie->usable && run_program(&ip, &c) < 0)
		ip.st.cfa_how = CFA_EXPR;
	cie->init = ip.st;
}

/* Index of the CIE at section offset @off among those decoded, or -1. */
static long lookup_cie(struct extract *x, Dwarf_Off off)
{
	size_t lo = 0, hi = x->n_cies;

	if (x->last_cie < x->n_cies && x->cies[x->last_cie].off == off)
		return (long)x->last_cie;
	if (x->cies_sorted) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (x->cies[mid].off < off)
				lo = mid + 1;
			else
				hi = mid;
		}
	} else {
		while (lo < hi && x->cies[lo].off != off)
			lo++;
	}
	if (lo >= x->n_cies || x->cies[lo].off != off)
		return -1;
	x->last_cie = lo;
	return (long)lo;
}

/* Like lookup_cie(), decoding the CIE when it was not met before its FDE
 * (possible in .debug_frame). */
static long find_cie(struct extract *x, Dwarf_Off off)
{
	long i = lookup_cie(x, off);
	Dwarf_CFI_Entry e;
	Dwarf_Off next = (Dwarf_Off)-1;

	if (i >= 0)
		return i;
	if (dwarf_next_cfi(x->sec.ident, x->sec.data, x->sec.eh, off, &next, &e) != 0 ||
	    !dwarf_cfi_cie_p(&e))
		return -1;
	add_cie(x, off, &e.cie);
	x->last_cie = x->n_cies - 1;
	return (long)x->last_cie;
}

/* Decode an FDE's header and queue it.  FDEs we cannot place are dropped. */
static void add_fde(struct extract *x, const Dwarf_FDE *df)
{
	long ci = find_cie(x, df->CIE_pointer);
	struct cursor c = { df->start, df->end, false };
	const struct cie *cie;
	uint64_t start, range;
	struct fde *f;

	if (ci < 0)
		goto out_bad;
	cie = &x->cies[ci];
	if (!read_encoded(&c, cie->fde_enc, &x->sec, &start) ||
	    !read_encoded(&c, cie->fde_enc & 0x0f, &x->sec, &range))
		goto out_bad;
	if (cie->aug_z)
		skip_block(&c);
	if (c.bad)
		goto out_bad;
	if (range == 0 || start + range < start || start + range > UINT32_MAX ||
	    !dw_module_vaddr_is_code(x->m, start))
		return;
	x->fdes = xgrow(x->fdes, &x->cap_fdes, x->n_fdes + 1, sizeof(*x->fdes));
	f = &x->fdes[x->n_fdes++];
	f->start = (uint32_t)start;
	f->end = (uint32_t)(start + range);
	f->ins = c.p;
	f->ins_len = (uint32_t)(df->end - c.p);
	f->cie = (uint32_t)ci;
	return;

out_bad:
	wr_debug("%s: %s: unreadable FDE header", dw_module_name(x->m), x->sec.name);
}

/* Enumerate the section's entries.  Returns 0 or -WR_EDWARF (entries
 * before the damage are kept). */
static int scan_section(struct extract *x)
{
	Dwarf_Off off = 0, next = (Dwarf_Off)-1;
	Dwarf_CFI_Entry e;
	int rc;

	x->cies_sorted = true;
	/* an FDE takes at least 16 bytes: reserve for all of them at once
	 * (untouched pages cost nothing) instead of copying as the array grows */
	x->fdes = xgrow(x->fdes, &x->cap_fdes, x->sec.data->d_size / 16 + 1, sizeof(*x->fdes));
	while ((rc = dwarf_next_cfi(x->sec.ident, x->sec.data, x->sec.eh, off, &next, &e)) != 1) {
		if (rc < 0) {
			x->err = -WR_EDWARF;
			if (next == (Dwarf_Off)-1 || next <= off)
				return x->err;
		} else if (dwarf_cfi_cie_p(&e)) {
			if (lookup_cie(x, off) < 0)
				add_cie(x, off, &e.cie);
		} else {
			add_fde(x, &e.fde);
		}
		off = next;
		next = (Dwarf_Off)-1;
	}
	return x->err;
}

/* LSD radix sort of @k on its upper 32 bits, three 11-bit digits; stable,
 * so the lower half keeps its order. */
static void radix_sort_high(uint64_t *k, size_t n)
{
	uint64_t *tmp = xmalloc(n * sizeof(*tmp)), *src = k, *dst = tmp, *swap;

	for (unsigned shift = 32; shift < 64; shift += 11) {
		size_t count[2048] = { 0 }, sum = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0x7ff]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0x7ff]++] = src[i];
		swap = src, src = dst, dst = swap;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
	free(tmp);
}

/* The order to run FDEs in: by start, section order among equal starts
 * (the first one wins an overlap).  Keys are start << 32 | index (starts
 * fit 32 bits, see add_fde).  Returns NULL when the section is already
 * sorted, as it is except for a few hot/cold/startup text sections;
 * otherwise the caller frees. */
static uint64_t *sort_fdes(const struct extract *x)
{
	uint64_t *k;
	size_t i;

	for (i = 1; i < x->n_fdes; i++)
		if (x->fdes[i].start < x->fdes[i - 1].start)
			break;
	if (i >= x->n_fdes)
		return NULL;
	k = xmalloc(x->n_fdes * sizeof(*k));
	for (i = 0; i < x->n_fdes; i++)
		k[i] = (uint64_t)x->fdes[i].start << 32 | i;
	radix_sort_high(k, x->n_fdes);
	return k;
}

/* Run one FDE into @t; @covered is the end of what earlier FDEs hold. */
static void run_fde(struct extract *x, struct interp *ip, const struct fde *f, uint64_t covered)
{
	const struct cie *cie = &x->cies[f->cie];
	struct cursor c = { f->ins, f->ins + f->ins_len, false };
	uint32_t unsupported;

	ip->cie = cie;
	ip->loc = f->start;
	ip->end = f->end;
	ip->clip_lo = covered > f->start ? covered : f->start;
	ip->st = cie->init;
	ip->depth = 0;
	ip->dirty = true;
	if (!cie->usable || run_program(ip, &c) < 0) {
		struct wr_cfi_rule r = { .kind = WR_ROW_UNSUPPORTED };

		wr_debug("%s: %s: malformed CFA program for 0x%llx", dw_module_name(x->m),
			 x->sec.name, (unsigned long long)f->start);
		unsupported = cfi_rules_intern(ip->rules, &r);
		emit(ip, unsupported);
	} else if (ip->loc < ip->end) {
		emit(ip, current_rule(ip));
	}
	push_row(ip->t, (uint32_t)f->end, WR_CFI_RULE_NONE);
}

/* All rows of one section into @t. */
static int extract_section(struct extract *x, struct cfi_table *t)
{
	struct interp *ip = xcalloc(1, sizeof(*ip));
	uint64_t covered = 0, *order;
	int err = scan_section(x);

	order = sort_fdes(x);
	ip->sec = &x->sec;
	ip->rules = x->rules;
	ip->t = t;
	/* about 5 bytes of CFI per row: one allocation, trimmed at the end */
	t->rows = xgrow(t->rows, &t->cap, x->sec.data->d_size / 4 + 16, sizeof(*t->rows));
	for (size_t i = 0; i < x->n_fdes; i++) {
		const struct fde *f = &x->fdes[order ? (uint32_t)order[i] : i];

		if (f->end <= covered)
			continue;
		run_fde(x, ip, f, covered);
		covered = f->end;
	}
	t->stats.fdes += x->n_fdes;
	free(order);
	free(ip);
	return err;
}

/* ======================================================================
 * Finding the sections
 * ====================================================================== */

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* Open section @name of @elf for reading; false when absent or empty. */
static bool open_section(Elf *elf, const char *name, struct cfi_section *s)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, name, &sh);

	if (!scn)
		return false;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	s->data = elf_getdata(scn, NULL);
	if (!s->data || !s->data->d_buf || s->data->d_size == 0)
		return false;
	s->name = name;
	s->buf = s->data->d_buf;
	s->vaddr = sh.sh_addr;
	s->eh = strcmp(name, ".eh_frame") == 0;
	s->ident = (const unsigned char *)elf_getident(elf, NULL);
	return s->ident != NULL;
}

/* The separate debug file, opened only for its section headers. */
struct debug_file {
	int fd;
	Elf *elf;
};

/* .debug_frame of the main file, else of the separate debug file, opened
 * here for its section headers only: loading its DWARF costs tens of
 * milliseconds on libc (every debug section is decompressed) and is not
 * needed for CFI.  The file is found by dw_module_find_debug_file(), which
 * leaves libdwfl's state alone (libdwfl's own search would adopt the
 * handle into the module, and closing it here would then break the
 * module's DWARF).  @df holds what must stay open while @s is read. */
static bool open_debug_frame(struct dw_module *m, struct cfi_section *s, struct debug_file *df)
{
	char *path;

	df->fd = -1;
	df->elf = NULL;
	if (open_section(m->elf, ".debug_frame", s))
		return true;
	if (m->dwarf_state == 1) {
		Elf *elf = dwarf_getelf(m->dwarf);

		return elf && elf != m->elf && open_section(elf, ".debug_frame", s);
	}
	path = dw_module_find_debug_file(m);
	if (!path)
		return false;
	df->fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (df->fd < 0)
		return false;
	df->elf = elf_begin(df->fd, ELF_C_READ_MMAP, NULL);
	return df->elf && open_section(df->elf, ".debug_frame", s);
}

static void close_debug_file(struct debug_file *df)
{
	if (df->elf)
		elf_end(df->elf);
	if (df->fd >= 0)
		close(df->fd);
}

static int extract_from(struct dw_module *m, struct cfi_rules *rules,
			const struct cfi_section *s, struct cfi_table *t)
{
	struct extract x;
	int err;

	memset(&x, 0, sizeof(x));
	x.m = m;
	x.rules = rules;
	x.sec = *s;
	err = extract_section(&x, t);
	free(x.cies);
	free(x.fdes);
	return err;
}

/* ======================================================================
 * Extraction
 * ====================================================================== */

/* Rows of @eh where it has a rule, else of @dbg. */
static void merge_tables(const struct cfi_table *eh, const struct cfi_table *dbg,
			 struct cfi_table *out)
{
	size_t i = 0, j = 0;
	uint32_t e = WR_CFI_RULE_NONE, d = WR_CFI_RULE_NONE;

	out->rows = xgrow(out->rows, &out->cap, eh->n + dbg->n + 1, sizeof(*out->rows));
	while (i < eh->n || j < dbg->n) {
		uint32_t pc;

		if (j >= dbg->n || (i < eh->n && eh->rows[i].pc <= dbg->rows[j].pc))
			pc = eh->rows[i].pc;
		else
			pc = dbg->rows[j].pc;
		if (i < eh->n && eh->rows[i].pc == pc)
			e = eh->rows[i++].rule;
		if (j < dbg->n && dbg->rows[j].pc == pc)
			d = dbg->rows[j++].rule;
		push_row(out, pc, e != WR_CFI_RULE_NONE ? e : d);
	}
}

static void count_kinds(struct cfi_table *t, const struct cfi_rules *rules)
{
	t->stats.rows = t->n;
	for (size_t i = 0; i < t->n; i++) {
		uint32_t r = t->rows[i].rule;

		if (r == WR_CFI_RULE_NONE)
			continue;
		if (rules->v[r].kind == WR_ROW_UNSUPPORTED)
			t->stats.unsupported_rows++;
		else if (rules->v[r].kind == WR_ROW_SIGNAL)
			t->stats.signal_rows++;
	}
}

/* Both sections: extract each on its own, then overlay. */
static int extract_both(struct dw_module *m, struct cfi_rules *rules,
			const struct cfi_section *eh, const struct cfi_section *dbg,
			struct cfi_table *out)
{
	struct cfi_table te, td;
	int err, err2;

	cfi_table_init(&te);
	cfi_table_init(&td);
	err = extract_from(m, rules, eh, &te);
	err2 = extract_from(m, rules, dbg, &td);
	merge_tables(&te, &td, out);
	out->stats.fdes = te.stats.fdes + td.stats.fdes;
	out->stats.rows_raw = te.stats.rows_raw + td.stats.rows_raw;
	out->source = !te.n ? ".debug_frame" : !td.n ? ".eh_frame" : "both";
	cfi_table_release(&te);
	cfi_table_release(&td);
	return err ? err : err2;
}

int cfi_table_extract(struct dw_module *m, struct cfi_rules *rules, struct cfi_table *out)
{
	struct cfi_section eh, dbg;
	struct debug_file df;
	struct timespec t0, t1;
	bool have_eh, have_dbg;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	free(out->rows);
	cfi_table_init(out);
	have_eh = open_section(m->elf, ".eh_frame", &eh);
	have_dbg = open_debug_frame(m, &dbg, &df);
	if (have_eh && have_dbg) {
		err = extract_both(m, rules, &eh, &dbg, out);
	} else if (have_eh || have_dbg) {
		err = extract_from(m, rules, have_eh ? &eh : &dbg, out);
		out->source = have_eh ? ".eh_frame" : ".debug_frame";
	}
	close_debug_file(&df);
	if (out->n == 0) {
		free(out->rows);
		out->rows = NULL;
		out->cap = 0;
	} else if (out->n < out->cap) {
		out->rows = xrealloc(out->rows, out->n * sizeof(*out->rows));
		out->cap = out->n;
	}
	count_kinds(out, rules);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->stats.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return err;
}

/* ======================================================================
 * Lookup and dumps
 * ====================================================================== */

long cfi_table_lookup(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	if (pc > UINT32_MAX)
		return -1;
	/* first row with rows[i].pc > pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t->rows[lo - 1].rule == WR_CFI_RULE_NONE)
		return -1;
	return (long)(lo - 1);
}

static const char *reg_name(unsigned reg)
{
	return reg == WR_DWARF_RBP ? "rbp" : reg == WR_DWARF_RSP ? "rsp" : "r?";
}

/* readelf's column notation: c-8 at CFA-8, v+8 the value CFA+8, u
 * undefined, s same value, a register's name. */
static void format_col(uint8_t rule, int16_t off, struct strbuf *out)
{
	switch (rule) {
	case WR_RULE_UNDEFINED: strbuf_addstr(out, "u"); break;
	case WR_RULE_AT_CFA: strbuf_addf(out, "c%+d", off); break;
	case WR_RULE_VAL_CFA: strbuf_addf(out, "v%+d", off); break;
	case WR_RULE_SAME_VALUE: strbuf_addstr(out, "s"); break;
	case WR_RULE_REGISTER: strbuf_addstr(out, reg_name((unsigned)off)); break;
	default: strbuf_addf(out, "?%u", rule); break;
	}
}

void cfi_rule_format(const struct wr_cfi_rule *rule, struct strbuf *out)
{
	if (rule->kind == WR_ROW_SIGNAL) {
		strbuf_addstr(out, "signal");
		return;
	}
	if (rule->kind != WR_ROW_NORMAL) {
		strbuf_addstr(out, "unsupported");
		return;
	}
	if (rule->cfa_kind == WR_CFA_DEREF)
		strbuf_addf(out, "cfa=*(%s%+d) ra=", reg_name(rule->cfa_reg), rule->cfa_off);
	else
		strbuf_addf(out, "cfa=%s%+d ra=", reg_name(rule->cfa_reg), rule->cfa_off);
	format_col(rule->ra_rule, rule->ra_off, out);
	strbuf_addstr(out, " rbp=");
	format_col(rule->rbp_rule, rule->rbp_off, out);
}

static void dump_row(const struct cfi_table *t, const struct cfi_rules *rules, size_t i,
		     struct strbuf *out)
{
	strbuf_addf(out, "0x%x-0x%x ", t->rows[i].pc, t->rows[i + 1].pc);
	cfi_rule_format(&rules->v[t->rows[i].rule], out);
	strbuf_addch(out, '\n');
}

/* Gap rows are not printed: their ranges show as holes.  Prints nothing
 * for a single @pc no row covers.  Every table ends with a gap row, so
 * rows[i + 1] exists for every rule row. */
void cfi_table_dump(const struct cfi_table *t, const struct cfi_rules *rules, uint64_t pc,
		    struct strbuf *out)
{
	long i;

	if (pc != UINT64_MAX) {
		i = cfi_table_lookup(t, pc);
		if (i >= 0)
			dump_row(t, rules, (size_t)i, out);
		return;
	}
	for (size_t k = 0; k + 1 < t->n; k++)
		if (t->rows[k].rule != WR_CFI_RULE_NONE)
			dump_row(t, rules, k, out);
}
