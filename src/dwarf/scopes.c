/* scopes.c - the DIEs whose code holds a pc (see dw_pc_scopes in
 * module_priv.h).
 *
 * libdw's dwarf_getscopes() does this too, but at an inlined call it
 * looks for the inlined function's abstract definition in the same unit,
 * and under LTO that definition lives in another unit (a cross-unit
 * DW_AT_abstract_origin): it then finds no scope at all, and every
 * variable of the function looks invisible.  This walk follows only the
 * concrete tree, the one that holds the code.
 *
 * In C a function with code sits at the top of its unit, so one pass over
 * the unit's children finds it.  In C++ it may also sit in a namespace or
 * a class, and a lambda's operator() sits in its closure type inside the
 * function that defines it, outside that function's ranges: there the
 * walk descends further.  Rust puts every function in the namespaces of
 * its module path (rscopes::net::wire), a method in its struct's DIE, a
 * trait method in a namespace {impl#N}: the walk descends there too.
 */
#include "dwarf/module_priv.h"

#include <dwarf.h>

#define MAX_NESTING 64

struct scope_walk {
	uint64_t pc;
	Dwarf_Off anchor;   /* a DIE taken in although it does not hold pc; 0: none */
	bool nested;        /* C++ or Rust: functions sit in namespaces and types */
	Dwarf_Die *out;
	int max;
};

static bool is_block(int tag)
{
	return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type;
}

static int walk(struct scope_walk *w, Dwarf_Die *parent, bool in_fn, int n, int depth);

/* The anchor's way down from @parent: each DIE on it that is a function
 * or a block joins the chain, whatever its code holds; below the anchor
 * the pc decides again. */
static int to_anchor(struct scope_walk *w, Dwarf_Die *parent, Dwarf_Off end, bool in_fn, int n, int depth)
{
	Dwarf_Die child, next;
	bool more;

	if (depth > MAX_NESTING || n >= w->max || dwarf_child(parent, &child) != 0)
		return n;
	do {
		Dwarf_Off off = dwarf_dieoffset(&child), child_end;
		int tag = dwarf_tag(&child);

		next = child;
		more = dwarf_siblingof(&next, &next) == 0;
		child_end = more ? dwarf_dieoffset(&next) : end;
		if (w->anchor < off || w->anchor >= child_end)
			continue;
		if (tag == DW_TAG_subprogram || (in_fn && is_block(tag)))
			w->out[n++] = child;
		else
			in_fn = false;
		if (off == w->anchor)
			return walk(w, &child, true, n, depth + 1);
		return to_anchor(w, &child, child_end, in_fn || tag == DW_TAG_subprogram, n, depth + 1);
	} while ((child = next, more));
	return n;
}

/* Whether @die's code holds @pc, in a range of code the linker kept. */
static bool holds_pc(Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (pc >= lo && pc < hi)
			return dw_range_live(lo);
	return false;
}

/* The chain under @parent holding the pc, appended to w->out[n...];
 * returns the new count.  @in_fn: @parent holds the pc (its blocks may). */
static int walk(struct scope_walk *w, Dwarf_Die *parent, bool in_fn, int n, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_NESTING || n >= w->max || dwarf_child(parent, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child), m = n;

		if (tag == DW_TAG_subprogram || (in_fn && is_block(tag))) {
			if (holds_pc(&child, w->pc)) {
				w->out[n] = child;
				return walk(w, &child, true, n + 1, depth + 1);
			}
			if (w->nested) /* a lambda defined inside */
				m = walk(w, &child, false, n, depth + 1);
		} else if (w->nested && (is_container(tag) || is_block(tag))) {
			m = walk(w, &child, false, n, depth + 1);
		}
		if (m > n)
			return m;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

bool dw_unit_is_cxx(Dwarf_Die *cudie)
{
	switch (dwarf_srclang(cudie)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
		return true;
	default:
		return false;
	}
}

bool dw_unit_is_rust(Dwarf_Die *cudie)
{
	return dwarf_srclang(cudie) == DW_LANG_Rust;
}

bool dw_die_is_rust(Dwarf_Die *die)
{
	Dwarf_Die cu;

	return dwarf_diecu(die, &cu, NULL, NULL) && dw_unit_is_rust(&cu);
}

int dw_pc_scopes(Dwarf_Die *cudie, uint64_t pc, Dwarf_Die *out, int max)
{
	return dw_pc_scopes_anchored(cudie, pc, 0, out, max);
}

int dw_pc_scopes_anchored(Dwarf_Die *cudie, uint64_t pc, Dwarf_Off anchor, Dwarf_Die *out, int max)
{
	struct scope_walk w = { .pc = pc, .anchor = anchor,
				.nested = dw_unit_is_cxx(cudie) || dw_unit_is_rust(cudie), .out = out,
				.max = max };
	int n;

	if (anchor && (n = to_anchor(&w, cudie, (Dwarf_Off)-1, false, 0, 0)) > 0)
		return n;
	return walk(&w, cudie, false, 0, 0);
}

/* Where execution enters @die: DW_AT_entry_pc (an address, or in DWARF 5
 * an offset from the start), else DW_AT_low_pc, else the first range. */
bool dw_die_entry_pc(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Attribute attr;
	Dwarf_Addr base, start, end;
	Dwarf_Word off;

	if (dwarf_attr(die, DW_AT_entry_pc, &attr)) {
		if (dwarf_formaddr(&attr, pc) == 0)
			return true;
		if (dwarf_formudata(&attr, &off) == 0) {
			if (dwarf_lowpc(die, &start) != 0 && dwarf_ranges(die, 0, &base, &start, &end) <= 0)
				return false;
			*pc = start + off;
			return true;
		}
	}
	if (dwarf_lowpc(die, pc) == 0)
		return true;
	if (dwarf_ranges(die, 0, &base, &start, &end) <= 0)
		return false;
	*pc = start;
	return true;
}
