/* cfi_program.c - the DW_CFA_* interpreter behind cfi_table_extract()
 * (see cfi.h): decoding a section's CIEs and FDEs and running each FDE's
 * program once, start to end, into rows.
 *
 * It exists apart from cfi.c because it is the one part that reads CFI
 * bytes: cfi.c only finds the sections and orders, merges and looks up the
 * rows this file emits (through cfi_table_push_row(), which also merges
 * them as they arrive).  libdw only splits a section into CIEs and FDEs
 * (dwarf_next_cfi); the programs are run here, tracking just the columns
 * the BPF unwinder carries: the CFA, the return address and rbp.
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
 */
#include "dwarf/cursor.h"
#include "unwind/cfi_priv.h"
#include "util/error.h"
#include "util/log.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Reading the section
 * ====================================================================== */

/* A DW_EH_PE_* value; only absolute and pc-relative ones occur in x86-64
 * FDE headers, the rest are reported as unreadable. */
static bool read_encoded(struct dw_cursor *c, uint8_t enc, const struct cfi_section *s,
			 uint64_t *out)
{
	uint64_t field = s->vaddr + (uint64_t)(c->p - s->buf);
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8: v = dw_read_fixed(c, 8); break;
	case DW_EH_PE_udata4: v = (uint32_t)dw_read_fixed(c, 4); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)dw_read_fixed(c, 4); break;
	case DW_EH_PE_udata2: v = (uint16_t)dw_read_fixed(c, 2); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)dw_read_fixed(c, 2); break;
	case DW_EH_PE_uleb128: v = dw_read_uleb(c); break;
	case DW_EH_PE_sleb128: v = (uint64_t)dw_read_sleb(c); break;
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
	H_AT_RBP,     /* at rbp + off (DW_CFA_expression: DW_OP_breg6 off) */
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

struct cfi_cie {
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
	const struct cfi_cie *cie;
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
	case H_AT_RBP:
		if (fits_s16(c->off)) {
			r->rbp_rule = WR_RULE_AT_RBP;
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
		cfi_table_push_row(ip->t, (uint32_t)pc, rule);
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
static void exec_cfa_expression(struct interp *ip, struct dw_cursor *c)
{
	uint64_t len = dw_read_uleb(c);
	struct dw_cursor e = { c->p, c->p, false };

	if (len > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	e.end = c->p + len;
	c->p += len;
	ip->st.cfa_how = CFA_EXPR;
	ip->dirty = true;
	if (len >= 3 && e.p[0] == DW_OP_breg0 + WR_DWARF_RBP && e.end[-1] == DW_OP_deref) {
		int64_t off;

		e.p++;
		e.end--;
		off = dw_read_sleb(&e);
		if (!e.bad && e.p == e.end) {
			ip->st.cfa_how = CFA_DEREF_RBP;
			ip->st.cfa_off = off;
		}
	}
}

/* DW_CFA_expression: the register is saved at the address the block
 * computes.  GCC's stack realignment saves rbp at rbp+N (DW_OP_breg6 N);
 * any other block stays an expression. */
static void exec_reg_expression(struct interp *ip, struct dw_cursor *c, uint64_t reg)
{
	uint64_t len = dw_read_uleb(c);
	struct dw_cursor e = { c->p, c->p, false };
	int64_t off;

	if (len > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	e.end = c->p + len;
	c->p += len;
	if (len >= 2 && e.p[0] == DW_OP_breg0 + WR_DWARF_RBP) {
		e.p++;
		off = dw_read_sleb(&e);
		if (!e.bad && e.p == e.end) {
			set_col(ip, reg, H_AT_RBP, off);
			return;
		}
	}
	set_col(ip, reg, H_EXPR, 0);
}

static void skip_block(struct dw_cursor *c)
{
	uint64_t len = dw_read_uleb(c);

	if (len > (uint64_t)(c->end - c->p))
		c->bad = true;
	else
		c->p += len;
}

/* Operations on the CFA rule. */
static int exec_cfa(struct interp *ip, struct dw_cursor *c, uint8_t op)
{
	int64_t daf = ip->cie->daf;

	ip->dirty = true;
	switch (op) {
	case DW_CFA_def_cfa:
		ip->st.cfa_reg = dw_read_uleb(c);
		ip->st.cfa_off = (int64_t)dw_read_uleb(c);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_sf:
		ip->st.cfa_reg = dw_read_uleb(c);
		ip->st.cfa_off = scaled((uint64_t)dw_read_sleb(c), daf);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_register:
		ip->st.cfa_reg = dw_read_uleb(c);
		ip->st.cfa_how = CFA_REG;
		break;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		/* only meaningful for a register rule: keep others unsupported */
		if (ip->st.cfa_how != CFA_REG)
			ip->st.cfa_how = CFA_EXPR;
		if (op == DW_CFA_def_cfa_offset)
			ip->st.cfa_off = (int64_t)dw_read_uleb(c);
		else
			ip->st.cfa_off = scaled((uint64_t)dw_read_sleb(c), daf);
		break;
	default: /* DW_CFA_def_cfa_expression */
		exec_cfa_expression(ip, c);
		break;
	}
	return 0;
}

/* Operations on one register's rule. */
static int exec_reg(struct interp *ip, struct dw_cursor *c, uint8_t op)
{
	int64_t daf = ip->cie->daf;
	uint64_t reg = dw_read_uleb(c);

	switch (op) {
	case DW_CFA_offset_extended:
		set_col(ip, reg, H_OFFSET, scaled(dw_read_uleb(c), daf));
		break;
	case DW_CFA_offset_extended_sf:
		set_col(ip, reg, H_OFFSET, scaled((uint64_t)dw_read_sleb(c), daf));
		break;
	case DW_CFA_GNU_negative_offset_extended:
		set_col(ip, reg, H_OFFSET, scaled(0 - dw_read_uleb(c), daf));
		break;
	case DW_CFA_val_offset:
		set_col(ip, reg, H_VAL_OFFSET, scaled(dw_read_uleb(c), daf));
		break;
	case DW_CFA_val_offset_sf:
		set_col(ip, reg, H_VAL_OFFSET, scaled((uint64_t)dw_read_sleb(c), daf));
		break;
	case DW_CFA_restore_extended: restore_col(ip, reg); break;
	case DW_CFA_undefined: set_col(ip, reg, H_UNDEF, 0); break;
	case DW_CFA_same_value: set_col(ip, reg, H_SAME, 0); break;
	case DW_CFA_register: set_col(ip, reg, H_REGISTER, (int64_t)dw_read_uleb(c)); break;
	case DW_CFA_expression:
		exec_reg_expression(ip, c, reg);
		break;
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
static int exec_op(struct interp *ip, struct dw_cursor *c, uint8_t op)
{
	uint64_t caf = ip->cie->caf, loc;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_GNU_args_size:
		dw_read_uleb(c);
		return 0;
	case DW_CFA_set_loc:
		if (!read_encoded(c, ip->sec->eh ? ip->cie->fde_enc : DW_EH_PE_absptr, ip->sec, &loc))
			return -1;
		return advance_to(ip, loc);
	case DW_CFA_advance_loc1: return advance_to(ip, ip->loc + dw_read_fixed(c, 1) * caf);
	case DW_CFA_advance_loc2: return advance_to(ip, ip->loc + dw_read_fixed(c, 2) * caf);
	case DW_CFA_advance_loc4: return advance_to(ip, ip->loc + dw_read_fixed(c, 4) * caf);
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
static int run_program(struct interp *ip, struct dw_cursor *c)
{
	int rc = 0;

	while (c->p < c->end && rc == 0) {
		uint8_t op = *c->p++;

		switch (op >> 6) {
		case 1:
			rc = advance_to(ip, ip->loc + (op & 0x3f) * ip->cie->caf);
			break;
		case 2:
			set_col(ip, op & 0x3f, H_OFFSET, scaled(dw_read_uleb(c), ip->cie->daf));
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

/* Walk the augmentation string for what FDEs need: the pointer encoding
 * ('R') and the signal-frame mark ('S'). */
static bool parse_augmentation(struct cfi_cie *cie, const Dwarf_CIE *dc,
			       const struct cfi_section *s)
{
	const char *a = dc->augmentation;
	struct dw_cursor c = { dc->augmentation_data,
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
			cie->fde_enc = (uint8_t)dw_read_fixed(&c, 1);
		} else if (*a == 'L') {
			dw_read_fixed(&c, 1);
		} else if (*a == 'P') {
			uint8_t enc = (uint8_t)dw_read_fixed(&c, 1);

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

static void add_cie(struct cfi_extract *x, Dwarf_Off off, const Dwarf_CIE *dc)
{
	struct cfi_cie *cie;
	struct interp ip;
	struct dw_cursor c = { dc->initial_instructions, dc->initial_instructions_end, false };

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
static long lookup_cie(struct cfi_extract *x, Dwarf_Off off)
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
static long find_cie(struct cfi_extract *x, Dwarf_Off off)
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
static void add_fde(struct cfi_extract *x, const Dwarf_FDE *df)
{
	long ci = find_cie(x, df->CIE_pointer);
	struct dw_cursor c = { df->start, df->end, false };
	const struct cfi_cie *cie;
	uint64_t start, range;
	struct cfi_fde *f;

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
int cfi_program_scan(struct cfi_extract *x)
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

/* ======================================================================
 * Running the FDEs
 * ====================================================================== */

/* Run one FDE into @t; @covered is the end of what earlier FDEs hold. */
static void run_fde(struct cfi_extract *x, struct interp *ip, const struct cfi_fde *f,
		    uint64_t covered)
{
	const struct cfi_cie *cie = &x->cies[f->cie];
	struct dw_cursor c = { f->ins, f->ins + f->ins_len, false };
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
	cfi_table_push_row(ip->t, (uint32_t)f->end, WR_CFI_RULE_NONE);
}

/* Run every queued FDE, each from where the earlier ones stop covering. */
void cfi_program_run(struct cfi_extract *x, const uint64_t *order, struct cfi_table *t)
{
	struct interp *ip = xcalloc(1, sizeof(*ip));
	uint64_t covered = 0;

	ip->sec = &x->sec;
	ip->rules = x->rules;
	ip->t = t;
	for (size_t i = 0; i < x->n_fdes; i++) {
		const struct cfi_fde *f = &x->fdes[order ? (uint32_t)order[i] : i];

		if (f->end <= covered)
			continue;
		run_fde(x, ip, f, covered);
		covered = f->end;
	}
	free(ip);
}
