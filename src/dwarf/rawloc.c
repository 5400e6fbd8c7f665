/* rawloc.c - location list entries libdw refuses, read by hand (see
 * vars_raw_location in vars_priv.h).
 *
 * GCC ends some entries with DW_OP_GNU_uninit ("this value may not be
 * initialized yet"), an operation libdw 0.188 does not know: it then
 * refuses the whole entry, where gdb shows the value.  So when libdw
 * fails on a location list, the entry covering the pc is found here, in
 * .debug_loclists (DWARF 5, with GCC's DW_LLE_GNU_view_pair entries) or
 * .debug_loc (DWARF 4), and its expression decoded with the operations a
 * variable's location uses; the marker is dropped.  Anything else this
 * decoder does not know still fails.
 */
#include "dwarf/cursor.h"
#include "dwarf/elfsec.h"
#include "dwarf/vars_priv.h"

#include <dwarf.h>
#include <string.h>

/* ---- sections ---- */

static bool section(Dwarf *dw, const char *name, struct dw_cursor *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(dwarf_getelf(dw), name, &sh);
	/* libdw has decompressed a compressed section in place already */
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf)
		return false;
	*out = (struct dw_cursor){ .p = d->d_buf, .end = (const uint8_t *)d->d_buf + d->d_size };
	return true;
}

/* Address @index of the unit's .debug_addr table. */
static bool indexed_addr(Dwarf *dw, Dwarf_Die *cudie, uint64_t index, uint64_t *out)
{
	struct dw_cursor c;
	Dwarf_Attribute a;
	Dwarf_Word base = 8;

	if (!section(dw, ".debug_addr", &c))
		return false;
	if (dwarf_attr(cudie, DW_AT_addr_base, &a) || dwarf_attr(cudie, DW_AT_GNU_addr_base, &a))
		dwarf_formudata(&a, &base);
	c.p += base + index * 8;
	*out = dw_read_fixed(&c, 8);
	return !c.bad;
}

/* ---- operations ---- */

/* Decodes @c into @ops; DW_OP_GNU_uninit is dropped (*@uninit says it
 * was there).  Returns the count, or -1 for an operation this decoder
 * does not know. */
static int decode(struct dw_cursor *c, Dwarf_Op *ops, size_t max, bool *uninit)
{
	size_t n = 0;

	while (c->p < c->end && !c->bad) {
		unsigned char a = *c->p++;
		Dwarf_Op op = { .atom = a };

		*uninit |= a == DW_OP_GNU_uninit;
		if (a == DW_OP_GNU_uninit || a == DW_OP_nop)
			continue;
		if ((a >= DW_OP_lit0 && a <= DW_OP_lit31) || (a >= DW_OP_reg0 && a <= DW_OP_reg31) ||
		    a == DW_OP_stack_value || a == DW_OP_call_frame_cfa || a == DW_OP_deref ||
		    a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_and || a == DW_OP_or ||
		    a == DW_OP_neg || a == DW_OP_not || a == DW_OP_dup || a == DW_OP_drop)
			;
		else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			op.number = (Dwarf_Word)dw_read_sleb(c);
		else if (a == DW_OP_fbreg || a == DW_OP_consts)
			op.number = (Dwarf_Word)dw_read_sleb(c);
		else if (a == DW_OP_regx || a == DW_OP_constu || a == DW_OP_plus_uconst || a == DW_OP_piece)
			op.number = dw_read_uleb(c);
		else if (a == DW_OP_bit_piece) {
			op.number = dw_read_uleb(c);
			op.number2 = dw_read_uleb(c);
		} else if (a == DW_OP_bregx) {
			op.number = dw_read_uleb(c);
			op.number2 = (Dwarf_Word)dw_read_sleb(c);
		} else if (a == DW_OP_addr || a == DW_OP_const8u)
			op.number = dw_read_fixed(c, 8);
		else if (a == DW_OP_const1u || a == DW_OP_deref_size)
			op.number = dw_read_fixed(c, 1);
		else if (a == DW_OP_const2u)
			op.number = dw_read_fixed(c, 2);
		else if (a == DW_OP_const4u)
			op.number = dw_read_fixed(c, 4);
		else
			return -1;
		if (n == max)
			return -1;
		ops[n++] = op;
	}
	return c->bad ? -1 : (int)n;
}

/* ---- the lists ---- */

/* One bounded entry of a location list, with its location views (GCC's
 * -gvariable-location-views: [lo, hi) then holds from view vlo at lo up
 * to, not including, view vhi at hi; lo == hi can hold at some views). */
struct loc_entry {
	uint64_t lo, hi;
	uint64_t vlo, vhi;
	struct dw_cursor expr;
};

struct loc_iter {
	Dwarf *dw;
	Dwarf_Die cudie;
	struct dw_cursor c;
	uint64_t base;
	bool v5;
	struct dw_cursor views;   /* DW_AT_GNU_locviews: a pair per entry */
	bool has_views;
	bool pending;             /* a DW_LLE_GNU_view_pair before the entry */
	uint64_t pend_lo, pend_hi;
};

/* DWARF 5: the next bounded entry; false at the end or on bad data. */
static bool next_loclists(struct loc_iter *it, struct loc_entry *e)
{
	struct dw_cursor *c = &it->c;

	for (;;) {
		unsigned char kind = (unsigned char)dw_read_fixed(c, 1);
		bool bounded = true;

		switch (kind) {
		case DW_LLE_end_of_list: return false;
		case DW_LLE_base_addressx:
			if (!indexed_addr(it->dw, &it->cudie, dw_read_uleb(c), &it->base))
				return false;
			continue;
		case DW_LLE_base_address: it->base = dw_read_fixed(c, 8); continue;
		case DW_LLE_GNU_view_pair:
			it->pend_lo = dw_read_uleb(c);
			it->pend_hi = dw_read_uleb(c);
			it->pending = true;
			continue;
		case DW_LLE_startx_endx:
			bounded = indexed_addr(it->dw, &it->cudie, dw_read_uleb(c), &e->lo) &&
				  indexed_addr(it->dw, &it->cudie, dw_read_uleb(c), &e->hi);
			break;
		case DW_LLE_startx_length:
			bounded = indexed_addr(it->dw, &it->cudie, dw_read_uleb(c), &e->lo);
			e->hi = e->lo + dw_read_uleb(c);
			break;
		case DW_LLE_offset_pair:
			e->lo = it->base + dw_read_uleb(c);
			e->hi = it->base + dw_read_uleb(c);
			break;
		case DW_LLE_default_location: e->lo = 0; e->hi = UINT64_MAX; break;
		case DW_LLE_start_end: e->lo = dw_read_fixed(c, 8); e->hi = dw_read_fixed(c, 8); break;
		case DW_LLE_start_length: e->lo = dw_read_fixed(c, 8); e->hi = e->lo + dw_read_uleb(c); break;
		default: return false;
		}
		if (!bounded)
			return false;
		e->expr.p = c->p; /* the length is read below */
		return true;
	}
}

/* DWARF 4: the next bounded entry of .debug_loc. */
static bool next_loc(struct loc_iter *it, struct loc_entry *e)
{
	struct dw_cursor *c = &it->c;

	for (;;) {
		uint64_t lo = dw_read_fixed(c, 8), hi = dw_read_fixed(c, 8);

		if (c->bad || (lo == 0 && hi == 0))
			return false;
		if (lo == UINT64_MAX) {
			it->base = hi;
			continue;
		}
		e->lo = it->base + lo;
		e->hi = it->base + hi;
		return true;
	}
}

/* The next bounded entry of the list, its views and its expression. */
static bool iter_next(struct loc_iter *it, struct loc_entry *e)
{
	uint64_t len;

	it->pending = false;
	if (!(it->v5 ? next_loclists(it, e) : next_loc(it, e)))
		return false;
	len = it->v5 ? dw_read_uleb(&it->c) : dw_read_fixed(&it->c, 2);
	if (it->c.bad || (uint64_t)(it->c.end - it->c.p) < len)
		return false;
	e->expr = (struct dw_cursor){ it->c.p, it->c.p + len, false };
	it->c.p += len;
	e->vlo = e->vhi = 0;
	if (it->pending) {
		e->vlo = it->pend_lo;
		e->vhi = it->pend_hi;
	} else if (it->has_views) {
		e->vlo = dw_read_uleb(&it->views);
		e->vhi = dw_read_uleb(&it->views);
	}
	return !it->views.bad;
}

/* Opens the list @attr (DW_FORM_sec_offset) with its views @views (a
 * DW_AT_GNU_locviews, may be NULL). */
static bool iter_open(Dwarf_Attribute *attr, Dwarf_Attribute *views, struct loc_iter *it)
{
	Dwarf_Half version = 0;
	Dwarf_Word off, voff;
	Dwarf_Addr base = 0;
	struct dw_cursor sec;
	const char *name;

	memset(it, 0, sizeof(*it));
	if (!attr->cu || dwarf_whatform(attr) != DW_FORM_sec_offset || dwarf_formudata(attr, &off) != 0 ||
	    dwarf_cu_info(attr->cu, &version, NULL, &it->cudie, NULL, NULL, NULL, NULL) != 0)
		return false;
	it->dw = dwarf_cu_getdwarf(attr->cu);
	it->v5 = version >= 5;
	name = it->v5 ? ".debug_loclists" : ".debug_loc";
	dwarf_lowpc(&it->cudie, &base);
	it->base = base;
	if (!section(it->dw, name, &sec) || off >= (Dwarf_Word)(sec.end - sec.p))
		return false;
	it->c = (struct dw_cursor){ sec.p + off, sec.end, false };
	if (views && dwarf_formudata(views, &voff) == 0 && voff < (Dwarf_Word)(sec.end - sec.p)) {
		it->views = (struct dw_cursor){ sec.p + voff, sec.end, false };
		it->has_views = true;
	}
	return true;
}

int vars_raw_location(Dwarf_Attribute *attr, uint64_t pc, Dwarf_Op *ops, size_t max, bool *uninit)
{
	struct loc_iter it;
	struct loc_entry e;

	*uninit = false;
	if (!iter_open(attr, NULL, &it))
		return -1;
	while (iter_next(&it, &e))
		if (pc >= e.lo && pc < e.hi)
			return decode(&e.expr, ops, max, uninit);
	return it.c.bad ? -1 : 0;
}

/* Does @e hold at view @view of @pc?  Positions compare as (address,
 * view) pairs; [lo, hi) is half open. */
static bool holds_at_view(const struct loc_entry *e, uint64_t pc, uint64_t view)
{
	bool from = e->lo < pc || (e->lo == pc && e->vlo <= view);
	bool to = pc < e->hi || (pc == e->hi && view < e->vhi);

	return from && to;
}

/* Does @e hold at some view of @pc that a plain address range misses (an
 * empty range, or one that ends at @pc's later views)?  At such a pc no
 * instruction runs between the views: what a location says at any of
 * them the machine holds. */
static bool holds_at_some_view(const struct loc_entry *e, uint64_t pc)
{
	if (e->lo == pc && e->hi == pc)
		return e->vlo < e->vhi;
	return e->hi == pc && e->lo < pc && e->vhi > 0;
}

int vars_view_entry(Dwarf_Attribute *attr, Dwarf_Attribute *views, uint64_t pc, int view,
		    size_t *index, Dwarf_Op *ops, size_t max, int *n_ops, bool *uninit)
{
	struct loc_iter it;
	struct loc_entry e;
	/* the first entry holding at the view, by its address range, at some
	 * view of pc only: preferred in this order */
	size_t first[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX }, i = 0, picked = SIZE_MAX;
	bool saw_views = false;

	*uninit = false;
	if (!iter_open(attr, views, &it))
		return -1;
	for (; iter_next(&it, &e); i++) {
		saw_views |= it.has_views || it.pending;
		if (first[0] == SIZE_MAX && view >= 0 && holds_at_view(&e, pc, (uint64_t)view))
			first[0] = i;
		if (first[1] == SIZE_MAX && pc >= e.lo && pc < e.hi)
			first[1] = i;
		if (first[2] == SIZE_MAX && holds_at_some_view(&e, pc))
			first[2] = i;
	}
	if (it.c.bad || it.views.bad || !saw_views)
		return -1; /* no views (libdw reads it), or not readable */
	for (int k = 0; k < 3 && picked == SIZE_MAX; k++)
		picked = first[k];
	if (picked == SIZE_MAX)
		return 0;
	iter_open(attr, views, &it);
	for (i = 0; iter_next(&it, &e) && i < picked; i++)
		;
	*index = picked;
	*n_ops = decode(&e.expr, ops, max, uninit);
	return 1;
}
