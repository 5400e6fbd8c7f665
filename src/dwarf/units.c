/* units.c - which compile unit holds a pc (see dw_unit_at in module_priv.h).
 *
 * libdwfl answers from .debug_aranges, which clang does not emit by
 * default and which libdw 0.188 does not rebuild from the units when it is
 * missing: without a fallback every clang-built module looks as if it had
 * no debug info at any pc.  So when .debug_aranges has no answer we look
 * the pc up in a table of every unit's own code ranges (DW_AT_low_pc and
 * DW_AT_high_pc, or DW_AT_ranges in any form, read through libdw so
 * addrx and rnglistx resolve), built once per module and sorted.
 *
 * A split unit (-gsplit-dwarf) is found through its skeleton, which holds
 * the ranges; the DIE handed out is the split unit's, where the functions
 * and variables are.  The .dwo is opened only when a pc lands in it.
 */
#include "dwarf/module_priv.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct unit_span {
	uint64_t lo, hi;
	Dwarf_CU *cu;
};

struct unit_table {
	struct unit_span *v;
	uint64_t *max_end; /* max_end[i]: greatest hi of v[0..i] */
	size_t n, cap;
};

static void table_destroy(void *data)
{
	struct unit_table *t = data;

	free(t->v);
	free(t->max_end);
	free(t);
}

static void add_unit(struct unit_table *t, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo || !dw_range_live(lo))
			continue;
		t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
		t->v[t->n++] = (struct unit_span){ lo, hi, cudie->cu };
	}
}

static int cmp_span(const void *a, const void *b)
{
	const struct unit_span *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static struct unit_table *table_of(struct dw_module *m, Dwarf *dw)
{
	struct dw_ext *ext = &m->ext[DW_EXT_UNITS];
	struct unit_table *t = ext->data;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;

	if (t)
		return t;
	t = xcalloc(1, sizeof(*t));
	ext->data = t;
	ext->destroy = table_destroy;
	/* No subdie: opening every .dwo just to list ranges would be slow. */
	while (dwarf_get_units(dw, cu, &cu, &version, &type, &cudie, NULL) == 0)
		if (type == DW_UT_compile || type == DW_UT_skeleton || type == DW_UT_partial)
			add_unit(t, &cudie);
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_span);
	t->max_end = xmalloc((t->n ? t->n : 1) * sizeof(*t->max_end));
	for (size_t i = 0; i < t->n; i++)
		t->max_end[i] = i && t->max_end[i - 1] > t->v[i].hi ? t->max_end[i - 1] : t->v[i].hi;
	return t;
}

/* The unit whose ranges hold @pc.  A unit's ranges may interleave with
 * another's, so look back over earlier starts while one could still
 * reach @pc. */
static Dwarf_CU *table_find(const struct unit_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && t->max_end[i] > pc;)
		if (pc < t->v[i].hi)
			return t->v[i].cu;
	return NULL;
}

/* @cudie, or the split unit its skeleton stands for. */
static bool full_unit(Dwarf_CU *cu, Dwarf_Die *out)
{
	Dwarf_Die cudie, subdie;
	uint8_t type;

	if (dwarf_cu_info(cu, NULL, &type, &cudie, &subdie, NULL, NULL, NULL) != 0)
		return false;
	*out = type == DW_UT_skeleton && subdie.addr ? subdie : cudie;
	return true;
}

bool dw_unit_at(struct dw_module *m, uint64_t pc, Dwarf_Die *cudie)
{
	Dwarf *dw = dw_module_dwarf(m);
	Dwarf_Addr bias;
	Dwarf_Die *die;
	Dwarf_CU *cu;

	if (!dw)
		return false;
	die = dwfl_module_addrdie(m->mod, pc, &bias);
	if (die)
		return full_unit(die->cu, cudie);
	cu = table_find(table_of(m, dw), pc);
	return cu && full_unit(cu, cudie);
}

bool dw_module_pc_is_cxx(struct dw_module *m, uint64_t pc)
{
	Dwarf_Die cudie;

	return dw_unit_at(m, pc, &cudie) && dw_unit_is_cxx(&cudie);
}

bool dw_next_unit(Dwarf *dw, Dwarf_CU **cu, Dwarf_Die *die, bool with_types)
{
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t type;

	while (dw && dwarf_get_units(dw, *cu, cu, &version, &type, &cudie, &subdie) == 0) {
		if (type == DW_UT_skeleton && subdie.addr) {
			*die = subdie;
			return true;
		}
		if (type == DW_UT_compile || type == DW_UT_partial || type == DW_UT_skeleton ||
		    (with_types && type == DW_UT_type)) {
			*die = cudie;
			return true;
		}
	}
	return false;
}
