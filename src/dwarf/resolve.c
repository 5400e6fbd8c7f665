/* resolve.c - turning a function name, a file:line or an address into probe
 * sites of one module (see resolve.h).
 *
 * A name is looked up in the function index of resolve_index.c under the
 * key of its last component; only the few candidates filed there are
 * named in full and matched, and only the matches get their sites worked
 * out here: a gdb-like breakpoint address past the prologue, file:line:col
 * from the line table.  Line lookups do without the index: they list the
 * units, bound each from its raw line table (resolve_files.c), have libdw
 * decode only the units that can hold the line, and walk the DIEs of those
 * alone (rs_unit_funcs).  Addresses are looked up with dw_unit_at().
 *
 * Without DWARF (or when DWARF does not know a name) the ELF symbol tables
 * stand in.
 */
#include "dwarf/resolve.h"

#include "dwarf/resolve_priv.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum match { MATCH_NONE, MATCH_SUFFIX, MATCH_EXACT };

/* ---- names ---- */

static enum match match_span(const char *cand, size_t clen, const char *query, size_t qlen)
{
	if (clen == qlen && memcmp(cand, query, qlen) == 0)
		return MATCH_EXACT;
	if (clen > qlen + 2 && memcmp(cand + clen - qlen, query, qlen) == 0 &&
	    cand[clen - qlen - 1] == ':' && cand[clen - qlen - 2] == ':')
		return MATCH_SUFFIX;
	return MATCH_NONE;
}

/* @s without any template argument lists ("std::vector<int>::push_back"
 * -> "std::vector::push_back"); an operator name is kept whole.  Caller
 * frees. */
static char *without_templates(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		bool starts = p == s || (p >= s + 2 && p[-1] == ':' && p[-2] == ':');

		if (depth == 0 && starts && strncmp(p, "operator", 8) == 0 && !rs_is_ident(p[8])) {
			strcpy(o, p);
			return out;
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (depth == 0)
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* @s without its ABI tags ("Edge::EvaluateCommand[abi:cxx11]" ->
 * "Edge::EvaluateCommand").  Caller frees. */
static char *without_abi_tags(const char *s)
{
	char *out = xstrdup(s), *o = out;
	const char *p = s, *end;

	while (*p) {
		if (strncmp(p, "[abi:", 5) == 0 && (end = strchr(p, ']'))) {
			p = end + 1;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* How @cand matches @query, template arguments as they are or, when the
 * query has none, left out of @cand. */
static enum match match_templates(const char *cand, const char *query)
{
	size_t clen = strlen(cand), qlen = strlen(query);
	enum match m = match_span(cand, clen, query, qlen);
	char *plain;

	if (m != MATCH_NONE || strchr(query, '<') || !strchr(cand, '<'))
		return m;
	plain = without_templates(cand);
	m = match_span(plain, strlen(plain), query, qlen);
	free(plain);
	return m;
}

/* How @cand (a qualified name without parameters) matches what the user
 * typed: exactly, or as a "::"-suffix.  A query without template arguments
 * also matches every instantiation ("std::vector::push_back" matches
 * "std::vector<int, std::allocator<int> >::push_back"), and one without
 * ABI tags every tagged name, as gdb's `break` matches them
 * ("Edge::EvaluateCommand" matches "Edge::EvaluateCommand[abi:cxx11]",
 * a function returning a std::string). */
static enum match match_name(const char *cand, const char *query)
{
	enum match m = match_templates(cand, query);
	char *untagged;

	if (m != MATCH_NONE || strstr(query, "[abi:") || !strstr(cand, "[abi:"))
		return m;
	untagged = without_abi_tags(cand);
	m = match_templates(untagged, query);
	free(untagged);
	return m;
}

/* Length of the index key of @comp, a query's last component: without
 * its template arguments or an ABI tag ("EvaluateCommand[abi:cxx11]" is
 * filed under "EvaluateCommand", its DWARF name). */
static size_t key_len(const char *comp)
{
	size_t len = rs_untemplated_len(comp);
	const char *tag = strstr(comp, "[abi:");

	return tag && (size_t)(tag - comp) < len ? (size_t)(tag - comp) : len;
}

/* ---- addresses and lines ---- */

/* End of the address range of @die that holds @pc. */
static Dwarf_Addr range_end(Dwarf_Die *die, Dwarf_Addr pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t it = 0;

	while ((it = dwarf_ranges(die, it, &base, &start, &end)) > 0)
		if (pc >= start && pc < end)
			return end;
	return pc + 1;
}

/* A unit's line table: the rows linerows.c reads (own), else libdw's. */
struct rs_lines {
	const struct dw_line_rows *own;
	Dwarf_Lines *lines;
	size_t n;
	struct dw_module *m;
	Dwarf_Die cu;
};

/* No row: what row_at() finds before a unit's first row. */
#define NO_ROW SIZE_MAX

/* The unit's table from libdw (file:line lookups, which libdw's file
 * lists serve too). */
static bool cu_lines(struct dw_module *m, Dwarf_Die *cudie, struct rs_lines *l)
{
	l->m = m;
	l->cu = *cudie;
	l->own = NULL;
	if (dwarf_getsrclines(cudie, &l->lines, &l->n) != 0)
		l->n = 0;
	return l->n > 0;
}

/* The unit's table for a few rows of it (the sites of functions): read by
 * linerows.c where it can, without libdw's decoding and sorting of every
 * row into allocated ones. */
static bool cu_rows(struct dw_module *m, Dwarf_Die *cudie, struct rs_lines *l)
{
	if (!(l->own = dw_unit_line_rows(m, cudie)))
		return cu_lines(m, cudie, l);
	l->m = m;
	l->cu = *cudie;
	l->lines = NULL;
	l->n = l->own->n;
	return l->n > 0;
}

/* A row of code the linker dropped (dw_line_dropped): as if not there. */
static bool row_dropped(const struct rs_lines *l, size_t i)
{
	if (l->own)
		return l->own->v[i].flags & DW_ROW_DROPPED;
	return dw_line_dropped(l->m, (Dwarf_Die *)&l->cu, dwarf_onesrcline(l->lines, i));
}

static Dwarf_Addr row_addr(const struct rs_lines *l, size_t i)
{
	Dwarf_Addr a = 0;

	if (l->own)
		return l->own->v[i].addr;
	dwarf_lineaddr(dwarf_onesrcline(l->lines, i), &a);
	return a;
}

/* Row @i's flag @own (DW_ROW_*), which libdw gives through @get. */
static bool row_flag(const struct rs_lines *l, size_t i, unsigned own, int (*get)(Dwarf_Line *, bool *))
{
	bool f = false;

	if (l->own)
		return l->own->v[i].flags & own;
	get(dwarf_onesrcline(l->lines, i), &f);
	return f;
}

static int row_line(const struct rs_lines *l, size_t i)
{
	int line = 0;

	if (l->own)
		return l->own->v[i].line;
	dwarf_lineno(dwarf_onesrcline(l->lines, i), &line);
	return line;
}

static int row_col(const struct rs_lines *l, size_t i)
{
	int col = 0;

	if (l->own)
		return l->own->v[i].col;
	dwarf_linecol(dwarf_onesrcline(l->lines, i), &col);
	return col;
}

/* Index of the first row at or after @addr (rows are sorted by address). */
static size_t rows_from(const struct rs_lines *l, Dwarf_Addr addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_addr(l, mid) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Row @i describes code: it ends no sequence and lies in no function the
 * linker dropped. */
static bool live_row(const struct rs_lines *l, size_t i)
{
	return !row_flag(l, i, DW_ROW_END, dwarf_lineendsequence) && !row_dropped(l, i);
}

static bool live_stmt(const struct rs_lines *l, size_t i)
{
	return row_flag(l, i, DW_ROW_STMT, dwarf_linebeginstatement) && live_row(l, i);
}

static size_t row_at(const struct rs_lines *l, Dwarf_Addr addr);

/* The source file of row @i (borrowed from libdw or linerows.c; NULL when
 * unknown). */
static const char *row_file(const struct rs_lines *l, size_t i)
{
	if (l->own)
		return l->own->v[i].file < l->own->n_files ? l->own->files[l->own->v[i].file] : NULL;
	return dwarf_linesrc(dwarf_onesrcline(l->lines, i), NULL, NULL);
}

static bool same_file(const char *a, const char *b)
{
	return a && b && (a == b || strcmp(a, b) == 0);
}

/* Whether @pc is in code inlined into @scope (a function, or a block of
 * it). */
static bool in_inlined(Dwarf_Die *scope, Dwarf_Addr pc, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(scope, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine && dwarf_haspc(&child, pc) == 1)
			return true;
		if (tag == DW_TAG_lexical_block && in_inlined(&child, pc, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The first row marked prologue_end in [@lo, @hi) among the rows of the
 * source file of the entry's own row, or 0.  gdb searches that file's
 * line table only: the prologue_end row of a header's inlined code (clang
 * marks so the first instruction after the prologue when it is an
 * inlined std::map lookup) is not taken. */
static Dwarf_Addr prologue_end(const struct rs_lines *l, Dwarf_Addr lo, Dwarf_Addr hi)
{
	size_t entry_row = row_at(l, lo);
	const char *entry_file = entry_row != NO_ROW ? row_file(l, entry_row) : NULL;

	for (size_t i = rows_from(l, lo); i < l->n && row_addr(l, i) < hi; i++)
		if (row_flag(l, i, DW_ROW_PROLOGUE_END, dwarf_lineprologueend) && live_stmt(l, i) &&
		    same_file(row_file(l, i), entry_file))
			return row_addr(l, i);
	return 0;
}

/* The breakpoint address of function @fn, entered at @lo, whose code runs
 * to @hi, in a unit without prologue_end rows for it and without location
 * lists: the function's second statement row - the first that starts a
 * new line or a new address (gdb lands there too: GCC's -O0 prologue is
 * the opening line's row) - unless the unit is LLVM's (@llvm) and that is
 * code inlined into the function, where gdb's search by lines stops (it
 * would then land past the function; @lo is where it means to be); else
 * @lo. */
static Dwarf_Addr skip_prologue(const struct rs_lines *l, Dwarf_Die *fn, bool llvm, Dwarf_Addr lo,
				Dwarf_Addr hi)
{
	Dwarf_Addr entry_addr = 0;
	int entry_line = 0;

	for (size_t i = rows_from(l, lo); i < l->n && row_addr(l, i) < hi; i++) {
		int line = row_line(l, i);

		if (!live_stmt(l, i) || line == 0)
			continue;
		if (!entry_line) {
			entry_line = line;
			entry_addr = row_addr(l, i);
		} else if (line != entry_line || row_addr(l, i) != entry_addr) {
			return llvm && in_inlined(fn, row_addr(l, i), 0) ? lo : row_addr(l, i);
		}
	}
	return lo;
}

/* The breakpoint address of a function of a unit of rustc's, entered at
 * @lo, whose code runs to @hi, whose entry file's rows mark no prologue
 * end: gdb 13 trusts no location there at the entry (rustc's producer,
 * "clang LLVM (rustc version ...)", is not clang's) and, as for any LLVM
 * unit, skips the entry's row by the line table: it stops where the next
 * row starts, of whatever file (at -O1 and -O2 that is often code
 * inlined from the standard library), unless the entry's own file has a
 * second row at the entry.  A parameter rustc keeps in a stack slot is
 * stored there in the prologue; its location holds only past it. */
static Dwarf_Addr rust_skip_prologue(const struct rs_lines *l, Dwarf_Addr lo, Dwarf_Addr hi)
{
	size_t first = rows_from(l, lo), i;
	const char *file;

	if (first >= l->n || row_addr(l, first) != lo)
		return lo;
	file = row_file(l, first);
	for (i = first + 1; i < l->n && row_addr(l, i) == lo; i++)
		if (live_row(l, i) && row_line(l, i) != 0 && same_file(row_file(l, i), file))
			return lo;
	for (; i < l->n && row_addr(l, i) < hi; i++)
		if (!row_dropped(l, i))
			return row_addr(l, i);
	return lo;
}

/* The row describing @addr: among the rows at the highest address not
 * above it, the last statement (as gdb reports), else the last row. */
static size_t row_at(const struct rs_lines *l, Dwarf_Addr addr)
{
	size_t end = rows_from(l, addr + 1), i;
	Dwarf_Addr at;

	while (end > 0 && row_dropped(l, end - 1))
		end--;
	if (end == 0)
		return NO_ROW;
	at = row_addr(l, end - 1);
	for (i = end; i-- > 0 && row_addr(l, i) == at;)
		if (live_stmt(l, i))
			return i;
	if (row_flag(l, end - 1, DW_ROW_END, dwarf_lineendsequence))
		return NO_ROW;
	return end - 1;
}

/* @s at row @row of @l (NO_ROW: no position). */
static void set_position(struct dw_site *s, const struct rs_lines *l, size_t row, Dwarf_Die *cudie)
{
	const char *file;
	int line, col;

	if (row == NO_ROW)
		return;
	file = row_file(l, row);
	line = row_line(l, row);
	col = row_col(l, row);
	free(s->file);
	s->file = file ? dw_unit_path(cudie, file) : NULL;
	s->line = line > 0 ? (unsigned)line : 0;
	s->col = col > 0 ? (unsigned)col : 0;
}

/* ---- sites ---- */

static struct dw_site *push_site(struct dw_sites *s, uint64_t vaddr, char *function, bool inlined)
{
	struct dw_site *site;

	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	site = &s->v[s->n++];
	*site = (struct dw_site){ .vaddr = vaddr, .function = function, .inlined = inlined };
	return site;
}

static void release_site(struct dw_site *s)
{
	free(s->function);
	free(s->file);
}

void dw_sites_release(struct dw_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		release_site(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_site(const void *a, const void *b)
{
	const struct dw_site *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return (int)x->inlined - (int)y->inlined;
}

/* Sorts @found by address, keeps the first (out-of-line before inlined)
 * site of each address, and moves them to the end of @out. */
static void append_sorted(struct dw_sites *found, struct dw_sites *out)
{
	if (found->n)
		qsort(found->v, found->n, sizeof(*found->v), cmp_site);
	for (size_t i = 0; i < found->n; i++) {
		if (i > 0 && found->v[i].vaddr == found->v[i - 1].vaddr) {
			release_site(&found->v[i]);
			continue;
		}
		out->v = xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = found->v[i];
	}
	free(found->v);
	memset(found, 0, sizeof(*found));
}

static bool has_loclist(Dwarf_Die *parent)
{
	Dwarf_Die die;
	Dwarf_Attribute attr;

	if (dwarf_child(parent, &die) != 0)
		return false;
	do {
		int tag = dwarf_tag(&die);

		if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
		    dwarf_attr(&die, DW_AT_location, &attr) &&
		    (dwarf_whatform(&attr) == DW_FORM_sec_offset ||
		     dwarf_whatform(&attr) == DW_FORM_loclistx))
			return true;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace) &&
		    has_loclist(&die))
			return true;
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/* gdb trusts variable locations at a function's very entry in units that
 * GCC or clang optimized - it proves them by their location lists - and
 * breaks at the entry there instead of skipping a prologue, unless the
 * line table marks the prologue's end.  We do the same. */
static bool unit_optimized(struct rs_cu *cu, Dwarf_Die *cudie)
{
	const char *producer;
	Dwarf_Attribute attr;

	if (!cu->optimized) {
		producer = dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &attr));
		cu->optimized = producer &&
					((strncmp(producer, "GNU ", 4) == 0 && !strstr(producer, "clang")) ||
					 strstr(producer, "clang version ")) &&
					has_loclist(cudie)
				? 1
				: -1;
	}
	return cu->optimized > 0;
}

/* Whether rustc compiled the unit, by its producer. */
static bool unit_rustc(Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;
	const char *producer = dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &attr));

	return producer && strstr(producer, "(rustc version ");
}

/* Whether LLVM compiled the unit (clang, rustc), by its producer. */
static bool unit_llvm(Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;
	const char *producer = dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &attr));

	return producer && (strncmp(producer, "clang ", 6) == 0 || strstr(producer, "clang version "));
}

/* Where a breakpoint on the function entered at @entry goes, as gdb 13's
 * `break FN`: the prologue_end row of the entry's file, else the entry in
 * an optimized unit (GCC's, clang's), else the next row in rustc's, else
 * past the opening line. */
static Dwarf_Addr breakpoint_pc(struct dw_module *m, struct rs_cu *cu, Dwarf_Die *die,
				Dwarf_Die *cudie, Dwarf_Addr entry)
{
	struct rs_lines l;
	Dwarf_Addr hi = range_end(die, entry), pe;

	if (!cu_rows(m, cudie, &l))
		return entry;
	if ((pe = prologue_end(&l, entry, hi)))
		return pe;
	if (unit_optimized(cu, cudie))
		return entry;
	if (unit_rustc(cudie))
		return rust_skip_prologue(&l, entry, hi);
	return skip_prologue(&l, die, unit_llvm(cudie), entry, hi);
}

/* The same over the functions of unit @c that file:line lookups list. */
static bool unit_function(struct rs_state *st, uint32_t c, Dwarf_Off near, Dwarf_Addr pc,
			  Dwarf_Die *out)
{
	const struct rs_unit_funcs *u = rs_unit_funcs(st, c);
	size_t lo = 0, hi = u->n_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->funcs[mid] <= near)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;)
		if (dwarf_offdie(st->cus[c].dw, u->funcs[i], out) && dwarf_haspc(out, pc) == 1)
			return true;
	return false;
}

/* The out-of-line function of unit @c that holds @pc, searched from the
 * index entry of DIE @near backwards: a unit's entries are in DIE order,
 * and a function's inlined instances follow it.  Without the whole index
 * (@indexed false) the unit's own function list serves. */
static bool physical_function(struct rs_state *st, uint32_t c, bool indexed, Dwarf_Off near,
			      Dwarf_Addr pc, Dwarf_Die *out)
{
	const struct rs_cu *cu = &st->cus[c];
	uint32_t lo = cu->first, hi = cu->end;

	if (!indexed)
		return unit_function(st, c, near, pc, out);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->ents[mid].die <= near)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i-- > cu->first;)
		if (rs_entry_kind(&st->ents[i]) == KIND_FUNC && dwarf_offdie(cu->dw, st->ents[i].die, out) &&
		    dwarf_haspc(out, pc) == 1)
			return true;
	return false;
}

/* No breakpoint goes inside a prologue (gdb moves them out, too): @pc,
 * found inside DIE @near, or the end of its function's prologue if that
 * comes later. */
static Dwarf_Addr past_prologue(struct rs_state *st, uint32_t c, bool indexed, Dwarf_Off near,
				 Dwarf_Addr pc)
{
	struct rs_cu *cu = &st->cus[c];
	Dwarf_Die fn, cudie;
	Dwarf_Addr entry, after;

	if (!physical_function(st, c, indexed, near, pc, &fn) || !dw_die_entry_pc(&fn, &entry) ||
	    !dwarf_offdie(cu->dw, cu->die, &cudie))
		return pc;
	after = breakpoint_pc(st->m, cu, &fn, &cudie, entry);
	return pc >= entry && pc < after ? after : pc;
}

/* The location view at which function instance @die is entered: an
 * inlined call's DW_AT_GNU_entry_view (GCC), an out-of-line function's
 * first view at its entry; false when the unit has no views. */
static bool entry_view(Dwarf_Die *die, unsigned *view)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	*view = 0;
	if (dwarf_tag(die) != DW_TAG_inlined_subroutine)
		return true;
	if (!dwarf_attr(die, DW_AT_GNU_entry_view, &a) || dwarf_formudata(&a, &v) != 0)
		return false;
	*view = (unsigned)v;
	return true;
}

/* The site of one function instance (index entry @i): past the prologue
 * of an out-of-line copy, at the entry of an inlined one. */
static void function_site(struct dw_module *m, struct rs_state *st, uint32_t i, char *name,
			  struct dw_sites *out)
{
	uint32_t c = rs_entry_unit(&st->ents[i]);
	bool inlined = rs_entry_kind(&st->ents[i]) == KIND_INST;
	struct rs_lines l = { 0 };
	Dwarf_Die die, cudie;
	Dwarf_Addr pc, entry;
	struct dw_site *site;

	if (!rs_entry_die(st, i, &die, &cudie) || !dw_die_entry_pc(&die, &entry))
		goto out_free;
	if (inlined)
		pc = past_prologue(st, c, true, st->ents[i].die, entry);
	else
		pc = breakpoint_pc(m, &st->cus[c], &die, &cudie, entry);
	if (!dw_module_vaddr_is_code(m, pc))
		goto out_free;
	site = push_site(out, pc, name, inlined);
	site->scope = dwarf_dieoffset(&die);
	if (pc == entry)
		site->has_view = entry_view(&die, &site->view);
	if (cu_rows(m, &cudie, &l))
		set_position(site, &l, row_at(&l, pc), &cudie);
	return;

out_free:
	free(name);
}

/* The sites of FUNC or ORIGIN entry @i. */
static void entry_sites(struct dw_module *m, struct rs_state *st, uint32_t i, char *name,
			struct dw_sites *out)
{
	if (rs_entry_kind(&st->ents[i]) == KIND_FUNC) {
		function_site(m, st, i, name, out);
		return;
	}
	for (uint32_t j = rs_first_instance(st, i); j != RS_NONE; j = st->ents[j].next)
		function_site(m, st, j, xstrdup(name), out);
	free(name);
}

struct candidate {
	uint32_t entry;
	enum match level;
	char *name;
};

/* How function @die, named @name, matches @query: a Rust function by
 * either of its names (gdb's, or its demangled linkage name). */
static enum match match_die(Dwarf_Die *die, const char *name, const char *query)
{
	enum match mt = match_name(name, query), alt_mt;
	char *alt = mt == MATCH_EXACT ? NULL : rs_function_alt_name(die);

	if (alt) {
		alt_mt = match_name(alt, query);
		mt = alt_mt > mt ? alt_mt : mt;
		free(alt);
	}
	return mt;
}

/* The sites of the best-matching DWARF functions under @query's key. */
static void dwarf_function_sites(struct dw_module *m, struct rs_state *st, const char *query,
				 struct dw_sites *out)
{
	const char *comp = rs_last_component(query);
	struct htab_slot *slot = htab_get(&st->keys, comp, key_len(comp), false);
	struct candidate *v = NULL;
	size_t n = 0, cap = 0;
	enum match best = MATCH_NONE;

	for (uint32_t i = slot ? slot->val : RS_NONE; i != RS_NONE; i = st->ents[i].next) {
		Dwarf_Die die, cudie;
		enum match mt;
		char *name;

		if (!rs_entry_die(st, i, &die, &cudie) || !(name = rs_function_name(st, &die)))
			continue;
		mt = match_die(&die, name, query);
		if (mt == MATCH_NONE || mt < best) {
			free(name);
			continue;
		}
		best = mt;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct candidate){ .entry = i, .level = mt, .name = name };
	}
	for (size_t k = 0; k < n; k++) {
		if (v[k].level == best)
			entry_sites(m, st, v[k].entry, v[k].name, out);
		else
			free(v[k].name);
	}
	free(v);
}

/* ---- ELF symbols ---- */

static bool outer_function(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out);

/* Where a probe on the function an ELF symbol names at @vaddr goes: past
 * the prologue, as for a name DWARF matched, when DWARF has a function
 * entered there (at an -O0 function's entry its parameters are not yet in
 * the stack slots DWARF gives them); else @vaddr. */
static uint64_t symbol_breakpoint(struct dw_module *m, uint64_t vaddr)
{
	struct rs_cu cu = { 0 };
	Dwarf_Die cudie, fn;
	Dwarf_Addr entry;

	if (!dw_unit_at(m, vaddr, &cudie) || !outer_function(&cudie, vaddr, &fn) ||
	    !dw_die_entry_pc(&fn, &entry) || entry != vaddr)
		return vaddr;
	return breakpoint_pc(m, &cu, &fn, &cudie, entry);
}

static void symbol_sites(struct dw_module *m, struct rs_state *st, const char *query,
			 struct dw_sites *out)
{
	const char *comp = rs_last_component(query);
	char *key = xstrndup(comp, key_len(comp));
	/* Mangled names spell identifiers out, so a symbol that lacks the key
	 * cannot match; operators and destructors are spelled differently. */
	bool filter = rs_is_ident(key[0]) && strncmp(key, "operator", 8) != 0;
	enum match best = MATCH_NONE;

	rs_symbols_load(m, st);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < st->n_syms; i++) {
			char *name;
			enum match mt;

			if (filter && !strstr(st->syms[i].name, key))
				continue;
			name = rs_symbol_name(st->syms[i].name);
			mt = match_name(name, query);
			if (pass == 0 && mt > best)
				best = mt;
			if (pass == 1 && mt == best && best != MATCH_NONE &&
			    dw_module_vaddr_is_code(m, st->syms[i].value))
				push_site(out, symbol_breakpoint(m, st->syms[i].value), name, false);
			else
				free(name);
		}
	}
	free(key);
}

/* Does @elf's symbol table @scn name a function matching @query? */
static bool symtab_names(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *query,
			 const char *key, bool filter)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *raw;
		char *name;
		bool hit;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		raw = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!raw || !*raw || (filter && !strstr(raw, key)))
			continue;
		name = rs_symbol_name(raw);
		hit = match_name(name, query) != MATCH_NONE;
		free(name);
		if (hit)
			return true;
	}
	return false;
}

/* Does any symbol table of @elf name @query?  *has_symtab tells whether it
 * has a full .symtab (not only the exported .dynsym). */
static bool elf_names(Elf *elf, const char *query, bool *has_symtab)
{
	const char *comp = rs_last_component(query);
	char *key = xstrndup(comp, key_len(comp));
	bool filter = rs_is_ident(key[0]) && strncmp(key, "operator", 8) != 0, found = false;
	Elf_Scn *scn = NULL;

	*has_symtab = false;
	while ((scn = elf_nextscn(elf, scn)) && !found) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		*has_symtab |= sh.sh_type == SHT_SYMTAB;
		found = symtab_names(elf, scn, &sh, query, key, filter);
	}
	free(key);
	return found;
}

bool dw_module_may_define(struct dw_module *m, const char *name)
{
	bool has_symtab, found;
	char *path;
	int fd;
	Elf *elf;

	if (elf_names(m->elf, name, &has_symtab))
		return true;
	if (has_symtab)
		return false;
	/* Distribution libraries keep their full symbol table (static
	 * functions included) in the separate debug file: its section headers
	 * and symbols are cheap to read, unlike its DWARF. */
	path = dw_module_find_debug_file(m);
	if (!path)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return true;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	found = !elf || elf_names(elf, name, &has_symtab) || !has_symtab;
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

int dw_resolve_function(struct dw_module *m, const char *name, struct dw_sites *out)
{
	struct rs_state *st = rs_state_of(m);
	struct dw_sites found = { 0 };
	Dwarf *dw = dw_module_dwarf(m);

	if (!name || !*name)
		return -EINVAL;
	if (dw) {
		rs_index_ensure(st, dw);
		dwarf_function_sites(m, st, name, &found);
	}
	if (found.n == 0)
		symbol_sites(m, st, name, &found);
	append_sorted(&found, out);
	return 0;
}

/* ---- file:line ---- */

/* @path (a file unit @cudie names) names @query: the same path, or ends
 * with it at a '/' boundary (which covers a bare basename).  Both are
 * compared absolute and normalised: a unit compiled from a relative path
 * records "../src/x.c" under its compilation directory. */
static bool file_matches(Dwarf_Die *cudie, const char *path, const char *query)
{
	char *p = dw_unit_path(cudie, path), *q = dw_path_normalize(query);
	size_t pl = strlen(p), ql = strlen(q);
	bool match;

	if (pl == ql)
		match = strcmp(p, q) == 0;
	else
		match = pl > ql && p[pl - ql - 1] == '/' && strcmp(p + pl - ql, q) == 0;
	free(p);
	free(q);
	return match;
}

/* Rows of one unit name the same few file strings over and over. */
struct file_cache {
	Dwarf_Die *cudie;
	const char *query;
	const char *last;
	bool match;
};

static bool row_in_file(const struct rs_lines *l, size_t row, struct file_cache *c)
{
	const char *f = row_file(l, row);

	if (f != c->last) {
		c->last = f;
		c->match = f && file_matches(c->cudie, f, c->query);
	}
	return c->match;
}

static bool unit_names_file(Dwarf_Die *cudie, const char *query)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cudie, &files, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);

		if (f && file_matches(cudie, f, query))
			return true;
	}
	return false;
}

struct line_hit {
	Dwarf_Addr addr;
	uint32_t cu;
	Dwarf_Off fn; /* innermost function instance, or 0 */
	Dwarf_Off scope; /* the innermost one the line is in (its names), or 0 */
	size_t row;   /* of the unit's libdw table (unit_of) */
};

struct line_query {
	const char *file;
	unsigned line;   /* as asked */
	unsigned used;   /* the first line >= line that has code */
	bool loose;      /* the line asked has rows, none a statement: they are
			    used (GCC marks so a line of code inlined and mixed
			    with its caller's at -O3) */
	bool *units;     /* units whose file tables name the file (of those that may
			    hold q->used) */
	struct line_hit *hits;
	size_t n_hits, cap_hits;
};

static bool unit_of(struct rs_state *st, uint32_t c, Dwarf_Die *cudie, struct rs_lines *l)
{
	return dwarf_offdie(st->cus[c].dw, st->cus[c].die, cudie) && cu_lines(st->m, cudie, l);
}

/* The last component of @query normalised, or NULL when there is none to
 * filter units by.  Caller frees *@norm. */
static const char *query_base(const char *query, char **norm)
{
	const char *base;

	*norm = dw_path_normalize(query);
	base = strrchr(*norm, '/') ? strrchr(*norm, '/') + 1 : *norm;
	return *base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0 ? base : NULL;
}

/* Marks unit @c if it names the file, and lowers q->used to its least
 * statement line of the file at or after the line asked for. */
static void scan_unit_exactly(struct rs_state *st, struct line_query *q, uint32_t c)
{
	struct rs_lines l;
	Dwarf_Die cudie;
	struct file_cache fc = { .cudie = &cudie, .query = q->file };

	if (!unit_of(st, c, &cudie, &l) || !unit_names_file(&cudie, q->file))
		return;
	q->units[c] = true;
	for (size_t i = 0; i < l.n; i++) {
		int line = row_line(&l, i);

		if (line < (int)q->line || (unsigned)line > q->used)
			continue;
		if (live_stmt(&l, i) && row_in_file(&l, i, &fc))
			q->used = (unsigned)line;
		else if (line == (int)q->line && live_row(&l, i) &&
			 row_in_file(&l, i, &fc))
			q->loose = true;
	}
}

struct unit_bound {
	unsigned least; /* no row of the file at a line >= asked lies below */
	uint32_t c;
};

static int cmp_bound(const void *a, const void *b)
{
	const struct unit_bound *x = a, *y = b;

	if (x->least != y->least)
		return x->least < y->least ? -1 : 1;
	return (x->c > y->c) - (x->c < y->c);
}

/* Bounds every unit that may name the file from its raw line table
 * (rs_unit_scan); units that cannot name it are left out.  Returns the
 * count put in @v. */
static size_t bound_units(struct rs_state *st, struct line_query *q, struct unit_bound *v)
{
	char *norm;
	const char *base = query_base(q->file, &norm);
	size_t n = 0;

	for (uint32_t c = 0; c < st->n_cus; c++) {
		Dwarf_Die cudie;
		unsigned least = q->line;

		if (base && dwarf_offdie(st->cus[c].dw, st->cus[c].die, &cudie)) {
			enum rs_scan r = rs_unit_scan(&cudie, base, q->line, &least);

			if (r == RS_SCAN_NONE)
				continue;
			if (r == RS_SCAN_MAYBE)
				least = q->line;
		}
		v[n++] = (struct unit_bound){ .least = least, .c = c };
	}
	free(norm);
	return n;
}

/* Finds q->used and marks the units that may hold it.  libdw decodes a
 * unit's lines only while its raw bound could still lower the line found:
 * the units are taken by bound, least first, and those left over cannot
 * hold a row at q->used. */
static void find_used_line(struct rs_state *st, struct line_query *q)
{
	struct unit_bound *v = xmalloc((st->n_cus ? st->n_cus : 1) * sizeof(*v));
	size_t n = bound_units(st, q, v);

	q->used = UINT_MAX;
	if (n)
		qsort(v, n, sizeof(*v), cmp_bound);
	for (size_t k = 0; k < n && v[k].least != UINT_MAX && v[k].least <= q->used; k++)
		scan_unit_exactly(st, q, v[k].c);
	free(v);
	/* A line without a statement row but with rows is code all the same:
	 * its own rows, rather than the next line's (perhaps in another
	 * function), are what a probe of it means. */
	if (q->used == q->line)
		q->loose = false;
	else if (q->loose)
		q->used = q->line;
}

#define MAX_SCOPES 64

/* The innermost function instance (inlined or not) whose code holds @pc,
 * or 0. */
static Dwarf_Off innermost_function(Dwarf_Die *cudie, Dwarf_Addr pc)
{
	Dwarf_Die scopes[MAX_SCOPES];
	int n = dw_pc_scopes(cudie, pc, scopes, MAX_SCOPES);

	for (int i = n; i-- > 0;) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			return dwarf_dieoffset(&scopes[i]);
	}
	return 0;
}

/* The out-of-line function whose code holds @pc. */
static bool outer_function(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die scopes[MAX_SCOPES];
	int n = dw_pc_scopes(cudie, pc, scopes, MAX_SCOPES);

	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			return true;
		}
	return false;
}

/* The function instance a line of @file at @pc belongs to, for the names
 * a probe there sees: the innermost one declared in @file - a row of the
 * line may lie inside a call inlined from another file (a header's
 * accessor), whose names are not the line's - else the innermost. */
static Dwarf_Off line_function(Dwarf_Die *cudie, Dwarf_Addr pc, const char *file)
{
	Dwarf_Die scopes[MAX_SCOPES];
	int n = dw_pc_scopes(cudie, pc, scopes, MAX_SCOPES), innermost = -1;
	const char *decl;

	for (int i = n; i-- > 0;) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		if (innermost < 0)
			innermost = i;
		if ((decl = dwarf_decl_file(&scopes[i])) && file_matches(cudie, decl, file))
			return dwarf_dieoffset(&scopes[i]);
	}
	return innermost < 0 ? 0 : dwarf_dieoffset(&scopes[innermost]);
}

static void collect_hits(struct rs_state *st, struct line_query *q)
{
	for (uint32_t c = 0; c < st->n_cus; c++) {
		struct rs_lines l;
		Dwarf_Die cudie;
		struct file_cache fc = { .cudie = &cudie, .query = q->file };

		if (!q->units[c] || !unit_of(st, c, &cudie, &l))
			continue;
		for (size_t i = 0; i < l.n; i++) {
			Dwarf_Addr addr = row_addr(&l, i);

			if (row_line(&l, i) != (int)q->used || !(q->loose ? live_row(&l, i) : live_stmt(&l, i)) ||
			    !row_in_file(&l, i, &fc))
				continue;
			q->hits = xgrow(q->hits, &q->cap_hits, q->n_hits + 1, sizeof(*q->hits));
			q->hits[q->n_hits++] = (struct line_hit){
				.addr = addr, .cu = c, .fn = innermost_function(&cudie, addr),
				.scope = line_function(&cudie, addr, q->file), .row = i,
			};
		}
	}
}

static int cmp_hit(const void *a, const void *b)
{
	const struct line_hit *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A symbol's name for code that DWARF does not place in a function. */
static char *symbol_at(struct dw_module *m, uint64_t vaddr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, vaddr, &off, &sym, NULL, NULL, NULL);

	return name ? rs_symbol_name(name) : NULL;
}

/* The site of the lowest address of the line in one function instance,
 * moved out of the function's prologue if it lies there (the line of a
 * function's opening brace does). */
static void line_site(struct dw_module *m, struct rs_state *st, const struct line_hit *h,
		      struct dw_sites *out)
{
	Dwarf_Addr pc = past_prologue(st, h->cu, false, h->fn, h->addr);
	size_t row = h->row;
	Dwarf_Die fn, cudie;
	struct rs_lines l;
	bool inlined = false;
	char *name = NULL;

	if (h->fn && dwarf_offdie(st->cus[h->cu].dw, h->fn, &fn)) {
		inlined = dwarf_tag(&fn) == DW_TAG_inlined_subroutine;
		name = rs_function_name(st, &fn);
	}
	if (!name)
		name = symbol_at(m, pc);
	if (!unit_of(st, h->cu, &cudie, &l)) {
		free(name);
		return;
	}
	if (pc != h->addr)
		row = row_at(&l, pc);
	if (dw_module_vaddr_is_code(m, pc))
		set_position(push_site(out, pc, name, inlined), &l, row, &cudie);
	else
		free(name);
	if (h->scope && dw_module_vaddr_is_code(m, pc))
		out->v[out->n - 1].scope = h->scope;
}

int dw_resolve_line(struct dw_module *m, const char *file, unsigned line, struct dw_sites *out)
{
	struct rs_state *st = rs_state_of(m);
	struct line_query q = { .file = file, .line = line };
	struct dw_sites found = { 0 };
	Dwarf *dw = dw_module_dwarf(m);

	if (!file || !*file || line == 0)
		return -EINVAL;
	if (!dw)
		return -WR_ENODWARF;
	while (strncmp(q.file, "./", 2) == 0)
		q.file += 2;
	rs_units_ensure(st, dw);
	q.units = xcalloc(st->n_cus ? st->n_cus : 1, sizeof(bool));
	find_used_line(st, &q);
	if (q.used == UINT_MAX)
		goto out_free;
	collect_hits(st, &q);
	if (q.n_hits)
		qsort(q.hits, q.n_hits, sizeof(*q.hits), cmp_hit);
	for (size_t i = 0; i < q.n_hits; i++)
		if (i == 0 || q.hits[i].cu != q.hits[i - 1].cu || q.hits[i].fn != q.hits[i - 1].fn ||
		    !q.hits[i].fn)
			line_site(m, st, &q.hits[i], &found);
	append_sorted(&found, out);

out_free:
	free(q.hits);
	free(q.units);
	return 0;
}

/* ---- addresses ---- */

int dw_resolve_address(struct dw_module *m, uint64_t vaddr, struct dw_sites *out)
{
	struct dw_site *site;
	Dwarf_Die cudie, fn;
	struct rs_lines l;
	Dwarf_Off off;
	bool unit;

	if (!dw_module_vaddr_is_code(m, vaddr))
		return -ERANGE;
	site = push_site(out, vaddr, NULL, false);
	unit = dw_unit_at(m, vaddr, &cudie);
	if (unit && (off = innermost_function(&cudie, vaddr)) &&
	    dwarf_offdie(dwarf_cu_getdwarf(cudie.cu), off, &fn)) {
		site->function = rs_function_name(rs_state_of(m), &fn);
		site->inlined = dwarf_tag(&fn) == DW_TAG_inlined_subroutine;
	}
	if (unit && cu_rows(m, &cudie, &l))
		set_position(site, &l, row_at(&l, vaddr), &cudie);
	if (!site->function)
		site->function = symbol_at(m, vaddr);
	return 0;
}
