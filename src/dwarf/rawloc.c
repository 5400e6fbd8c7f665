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

/* DWARF 5: the expression of the entry of the list at @c covering @pc. */
static bool loclists_entry(Dwarf *dw, Dwarf_Die *cudie, struct dw_cursor *c, uint64_t base, uint64_t pc,
			   struct dw_cursor *expr)
{
	for (;;) {
		unsigned char kind = (unsigned char)dw_read_fixed(c, 1);
		uint64_t lo = 0, hi = 0, len;
		bool bounded = true;

		switch (kind) {
		case DW_LLE_end_of_list: return false;
		case DW_LLE_base_addressx:
			if (!indexed_addr(dw, cudie, dw_read_uleb(c), &base))
				return false;
			continue;
		case DW_LLE_base_address: base = dw_read_fixed(c, 8); continue;
		case DW_LLE_GNU_view_pair: dw_read_uleb(c); dw_read_uleb(c); continue;
		case DW_LLE_startx_endx:
			bounded = indexed_addr(dw, cudie, dw_read_uleb(c), &lo) && indexed_addr(dw, cudie, dw_read_uleb(c), &hi);
			break;
		case DW_LLE_startx_length:
			bounded = indexed_addr(dw, cudie, dw_read_uleb(c), &lo);
			hi = lo + dw_read_uleb(c);
			break;
		case DW_LLE_offset_pair: lo = base + dw_read_uleb(c); hi = base + dw_read_uleb(c); break;
		case DW_LLE_default_location: lo = 0; hi = UINT64_MAX; break;
		case DW_LLE_start_end: lo = dw_read_fixed(c, 8); hi = dw_read_fixed(c, 8); break;
		case DW_LLE_start_length: lo = dw_read_fixed(c, 8); hi = lo + dw_read_uleb(c); break;
		default: return false;
		}
		len = dw_read_uleb(c);
		if (c->bad || !bounded || (uint64_t)(c->end - c->p) < len)
			return false;
		if (pc >= lo && pc < hi) {
			*expr = (struct dw_cursor){ c->p, c->p + len, false };
			return true;
		}
		c->p += len;
	}
}

/* DWARF 4: the same in .debug_loc. */
static bool loc_entry(struct dw_cursor *c, uint64_t base, uint64_t pc, struct dw_cursor *expr)
{
	for (;;) {
		uint64_t lo = dw_read_fixed(c, 8), hi = dw_read_fixed(c, 8), len;

		if (c->bad || (lo == 0 && hi == 0))
			return false;
		if (lo == UINT64_MAX) {
			base = hi;
			continue;
		}
		len = dw_read_fixed(c, 2);
		if (c->bad || (uint64_t)(c->end - c->p) < len)
			return false;
		if (pc >= base + lo && pc < base + hi) {
			*expr = (struct dw_cursor){ c->p, c->p + len, false };
			return true;
		}
		c->p += len;
	}
}

int vars_raw_location(Dwarf_Attribute *attr, uint64_t pc, Dwarf_Op *ops, size_t max, bool *uninit)
{
	Dwarf_Die cudie;
	Dwarf_Half version = 0;
	Dwarf_Word off;
	Dwarf_Addr base = 0;
	Dwarf *dw;
	struct dw_cursor list, expr;
	bool found;

	if (!attr->cu || dwarf_whatform(attr) != DW_FORM_sec_offset || dwarf_formudata(attr, &off) != 0 ||
	    dwarf_cu_info(attr->cu, &version, NULL, &cudie, NULL, NULL, NULL, NULL) != 0)
		return -1;
	dw = dwarf_cu_getdwarf(attr->cu);
	dwarf_lowpc(&cudie, &base);
	if (!section(dw, version >= 5 ? ".debug_loclists" : ".debug_loc", &list) ||
	    off >= (Dwarf_Word)(list.end - list.p))
		return -1;
	list.p += off;
	found = version >= 5 ? loclists_entry(dw, &cudie, &list, base, pc, &expr)
			     : loc_entry(&list, base, pc, &expr);
	*uninit = false;
	return found ? decode(&expr, ops, max, uninit) : 0;
}
