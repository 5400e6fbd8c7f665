/* linerows.c - a unit's line table read raw, in libdw's row order (see
 * dw_unit_line_rows in module_priv.h).
 *
 * Finding a probe's sites asks each site's unit for a few rows: the row
 * at the site's address, the prologue_end rows of its function.  libdw
 * 0.188's dwarf_getsrclines() answers by decoding the unit's whole table
 * into rows allocated one by one, which it then sorts through a
 * comparison callback: under -flto a unit's table holds tens of thousands
 * of rows, and a probe of a few hundred inlined sites spent a third of its
 * start-up there.  This reader decodes the same rows into one array, in
 * the order libdw sorts them (by address; at one address a sequence's end
 * first; else in the program's order), which needs no sort when the
 * sequences do not overlap, with the last row an end of sequence as libdw
 * makes it, and marks the rows of sequences that start at
 * address 0 (code the linker dropped, dropped.c).  File names are made as
 * libdw makes them: an absolute name as it is, else its directory, '/'
 * and the name (the unit's DW_AT_comp_dir as directory 0 before DWARF 5).
 * Whatever libdw would refuse or this reader does not know (a compressed
 * or missing section, a split unit, DW_LNE_define_file, a form or an
 * opcode length it does not read, a value libdw's row cannot hold) gives
 * NULL, and the caller asks libdw.
 */
#include "dwarf/cursor.h"
#include "dwarf/elfsec.h"
#include "dwarf/module_priv.h"

#include "util/idmap.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct rows_cache {
	struct idmap by_unit; /* stmt_list offset + 1 -> struct dw_line_rows (or the failure mark) */
};

/* What a unit whose table this reader cannot read maps to. */
static struct dw_line_rows unreadable;

struct lr_header {
	unsigned version, offset_size, addr_size;
	uint8_t min_insn, default_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *lengths;
	Elf *elf;
	struct dw_cursor strs[2]; /* .debug_line_str, .debug_str */
	int have[2];
	const char *comp_dir;
	const char **dirs;
	size_t n_dirs, cap_dirs;
	struct dw_line_rows *out;
	size_t cap_files;
};

/* A string of form @form at @c; NULL for a form not read here. */
static const char *form_string(struct lr_header *h, struct dw_cursor *c, unsigned form)
{
	static const char *const names[2] = { ".debug_line_str", ".debug_str" };
	struct dw_cursor sec;
	uint64_t off;
	int k = form == DW_FORM_line_strp ? 0 : 1;

	if (form == DW_FORM_string)
		return dw_read_cstr(c);
	if (form != DW_FORM_line_strp && form != DW_FORM_strp)
		return NULL;
	off = dw_read_fixed(c, h->offset_size);
	if (!h->have[k])
		h->have[k] = elf_section_cursor(h->elf, names[k], &h->strs[k]) ? 1 : -1;
	sec = h->strs[k];
	if (c->bad || h->have[k] < 0 || off >= (uint64_t)(sec.end - sec.p))
		return NULL;
	sec.p += off;
	return dw_read_cstr(&sec);
}

/* An unsigned value of form @form; false for a form not read here. */
static bool form_udata(struct dw_cursor *c, unsigned form, uint64_t *v)
{
	switch (form) {
	case DW_FORM_data1: *v = dw_read_fixed(c, 1); return true;
	case DW_FORM_data2: *v = dw_read_fixed(c, 2); return true;
	case DW_FORM_data4: *v = dw_read_fixed(c, 4); return true;
	case DW_FORM_data8: *v = dw_read_fixed(c, 8); return true;
	case DW_FORM_udata: *v = dw_read_uleb(c); return true;
	default: return false;
	}
}

static bool skip_form(struct dw_cursor *c, unsigned form, unsigned offset_size)
{
	uint64_t v;

	if (form_udata(c, form, &v))
		return true;
	if (form == DW_FORM_data16)
		dw_skip(c, 16);
	else if (form == DW_FORM_block)
		dw_skip(c, dw_read_uleb(c));
	else if (form == DW_FORM_line_strp || form == DW_FORM_strp)
		dw_skip(c, offset_size);
	else if (form == DW_FORM_string)
		dw_read_cstr(c);
	else
		return false;
	return true;
}

static void add_dir(struct lr_header *h, const char *dir)
{
	h->dirs = xgrow(h->dirs, &h->cap_dirs, h->n_dirs + 1, sizeof(*h->dirs));
	h->dirs[h->n_dirs++] = dir;
}

/* File @name in directory @dir, named as libdw names it; false when the
 * directory does not exist (libdw refuses the table). */
static bool add_file(struct lr_header *h, const char *name, uint64_t dir)
{
	struct dw_line_rows *o = h->out;
	char *full;

	if (!name || dir >= h->n_dirs)
		return false;
	if (*name == '/' || !h->dirs[dir]) {
		full = xstrdup(name);
	} else {
		size_t dl = strlen(h->dirs[dir]), nl = strlen(name);

		full = xmalloc(dl + nl + 2);
		memcpy(full, h->dirs[dir], dl);
		full[dl] = '/';
		memcpy(full + dl + 1, name, nl + 1);
	}
	o->files = xgrow(o->files, &h->cap_files, o->n_files + 1, sizeof(*o->files));
	o->files[o->n_files++] = full;
	return true;
}

/* DWARF 5: one entry list (directories, or with @files the files). */
static bool v5_entries(struct lr_header *h, struct dw_cursor *c, bool files)
{
	uint64_t fmt[16][2], count;
	unsigned n_fmt = (unsigned)dw_read_fixed(c, 1);

	if (n_fmt > 16)
		return false;
	for (unsigned i = 0; i < n_fmt; i++) {
		fmt[i][0] = dw_read_uleb(c);
		fmt[i][1] = dw_read_uleb(c);
	}
	count = dw_read_uleb(c);
	if (c->bad || count > (uint64_t)(c->end - c->p))
		return false;
	for (uint64_t e = 0; e < count; e++) {
		const char *path = NULL;
		uint64_t dir = 0;

		for (unsigned i = 0; i < n_fmt; i++) {
			unsigned form = (unsigned)fmt[i][1];

			if (fmt[i][0] == DW_LNCT_path)
				path = form_string(h, c, form);
			else if (fmt[i][0] == DW_LNCT_directory_index && files) {
				if (!form_udata(c, form, &dir))
					return false;
			} else if (!skip_form(c, form, h->offset_size))
				return false;
			if (c->bad || (fmt[i][0] == DW_LNCT_path && !path))
				return false;
		}
		if (!path)
			return false;
		if (!files)
			add_dir(h, path);
		else if (!add_file(h, path, dir))
			return false;
	}
	return !c->bad;
}

/* DWARF 2 to 4: directory strings, then (name, dir, mtime, length) entries
 * numbered from 1 (libdw names file 0 "???"), each list ended by "". */
static bool v4_entries(struct lr_header *h, struct dw_cursor *c)
{
	const char *s;

	add_dir(h, h->comp_dir);
	while ((s = dw_read_cstr(c)) && *s)
		add_dir(h, s);
	if (!s)
		return false;
	h->out->files = xgrow(h->out->files, &h->cap_files, 1, sizeof(*h->out->files));
	h->out->files[h->out->n_files++] = xstrdup("???");
	while ((s = dw_read_cstr(c)) && *s) {
		uint64_t dir = dw_read_uleb(c);

		dw_read_uleb(c);
		dw_read_uleb(c);
		if (c->bad || !add_file(h, s, dir))
			return false;
	}
	return !c->bad && s;
}

/* The header at @c (which ends at the unit's end); @c left at the line
 * program.  False when unsure. */
static bool read_header(struct lr_header *h, struct dw_cursor *c)
{
	/* operands of opcodes 1 (DW_LNS_copy) to 12 (DW_LNS_set_isa) */
	static const uint8_t std_lengths[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	uint64_t len = dw_read_fixed(c, 4), hlen;
	const uint8_t *program;

	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = dw_read_fixed(c, 8);
		h->offset_size = 8;
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return false;
	c->end = c->p + len;
	h->version = (unsigned)dw_read_fixed(c, 2);
	if (h->version < 2 || h->version > 5)
		return false;
	if (h->version == 5) {
		h->addr_size = (unsigned)dw_read_fixed(c, 1);
		if (dw_read_fixed(c, 1) != 0)
			return false; /* segment selectors */
	}
	hlen = dw_read_fixed(c, h->offset_size);
	if (c->bad || hlen > (uint64_t)(c->end - c->p))
		return false;
	program = c->p + hlen;
	h->min_insn = (uint8_t)dw_read_fixed(c, 1);
	if (h->version >= 4 && dw_read_fixed(c, 1) != 1)
		return false; /* VLIW operations per instruction */
	h->default_stmt = dw_read_fixed(c, 1) != 0;
	h->line_base = (int8_t)dw_read_fixed(c, 1);
	h->line_range = (uint8_t)dw_read_fixed(c, 1);
	h->opcode_base = (uint8_t)dw_read_fixed(c, 1);
	h->lengths = c->p;
	if (c->bad || h->line_range == 0 || h->opcode_base == 0 || h->opcode_base - 1u > hlen ||
	    (h->addr_size != 4 && h->addr_size != 8))
		return false;
	dw_skip(c, h->opcode_base - 1u);
	/* the standard opcodes read their operands as DWARF says, whatever
	 * the header claims: a header that claims otherwise is not read */
	for (unsigned op = 1; op < h->opcode_base && op < sizeof(std_lengths); op++)
		if (h->lengths[op - 1] != std_lengths[op])
			return false;
	if (h->version < 5 ? !v4_entries(h, c) : !(v5_entries(h, c, false) && v5_entries(h, c, true)))
		return false;
	c->p = program;
	return true;
}

struct lr_state {
	uint64_t addr, file, isa, discriminator;
	int64_t line;
	uint64_t col;
	bool stmt, prologue_end, first, from_zero;
	size_t cap;      /* of the rows' array */
};

static void reset(const struct lr_header *h, struct lr_state *s)
{
	size_t cap = s->cap;

	*s = (struct lr_state){ .file = 1, .line = 1, .stmt = h->default_stmt, .first = true,
				.cap = cap };
}

/* A row with the registers' values; false when libdw's row cannot hold
 * them (it refuses the table then). */
static bool emit(struct lr_header *h, struct lr_state *s, bool end)
{
	struct dw_line_rows *o = h->out;
	struct dw_line_row *r;

	if (s->first) {
		s->from_zero = s->addr == 0;
		s->first = false;
	}
	if (s->line < INT_MIN || s->line > INT_MAX || s->col > USHRT_MAX || s->file > UINT_MAX ||
	    s->isa > UCHAR_MAX || s->discriminator >= 1u << 24 || o->n >= UINT32_MAX)
		return false;
	o->v = xgrow(o->v, &s->cap, o->n + 1, sizeof(*o->v));
	r = &o->v[o->n++];
	*r = (struct dw_line_row){ .addr = s->addr, .file = (uint32_t)s->file, .line = (int32_t)s->line,
				   .col = (uint16_t)s->col, .disc = (uint32_t)s->discriminator };
	r->flags = (s->stmt ? DW_ROW_STMT : 0) | (end ? DW_ROW_END : 0) |
		   (s->prologue_end ? DW_ROW_PROLOGUE_END : 0) | (s->from_zero ? DW_ROW_DROPPED : 0);
	s->discriminator = 0;
	s->prologue_end = false;
	return true;
}

static bool extended(struct lr_header *h, struct dw_cursor *c, struct lr_state *s)
{
	uint64_t len = dw_read_uleb(c);
	const uint8_t *next;
	unsigned op;

	if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p))
		return false;
	next = c->p + len;
	op = (unsigned)dw_read_fixed(c, 1);
	switch (op) {
	case DW_LNE_end_sequence:
		if (!emit(h, s, true))
			return false;
		reset(h, s);
		break;
	case DW_LNE_set_address:
		if (len - 1 != h->addr_size)
			return false;
		s->addr = dw_read_fixed(c, h->addr_size);
		break;
	case DW_LNE_set_discriminator:
		s->discriminator = dw_read_uleb(c);
		break;
	case DW_LNE_define_file:
		return false;
	default:
		break;
	}
	c->p = next;
	return !c->bad;
}

static bool standard(struct lr_header *h, struct dw_cursor *c, unsigned op, struct lr_state *s)
{
	switch (op) {
	case DW_LNS_copy: return emit(h, s, false);
	case DW_LNS_advance_pc: s->addr += dw_read_uleb(c) * h->min_insn; break;
	case DW_LNS_advance_line: s->line += dw_read_sleb(c); break;
	case DW_LNS_set_file: s->file = dw_read_uleb(c); break;
	case DW_LNS_set_column: s->col = dw_read_uleb(c); break;
	case DW_LNS_negate_stmt: s->stmt = !s->stmt; break;
	case DW_LNS_set_basic_block: break;
	case DW_LNS_const_add_pc:
		s->addr += (uint64_t)((255u - h->opcode_base) / h->line_range) * h->min_insn;
		break;
	case DW_LNS_fixed_advance_pc: s->addr += dw_read_fixed(c, 2); break;
	case DW_LNS_set_prologue_end: s->prologue_end = true; break;
	case DW_LNS_set_epilogue_begin: break;
	case DW_LNS_set_isa: s->isa = dw_read_uleb(c); break;
	default:
		for (unsigned i = 0; i < h->lengths[op - 1]; i++)
			dw_read_uleb(c);
	}
	return !c->bad;
}

static bool run_program(struct lr_header *h, struct dw_cursor *c)
{
	struct lr_state s = { 0 };

	reset(h, &s);
	while (c->p < c->end) {
		unsigned op = (unsigned)dw_read_fixed(c, 1);

		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;

			s.addr += (uint64_t)(adj / h->line_range) * h->min_insn;
			s.line += h->line_base + (int)(adj % h->line_range);
			if (!emit(h, &s, false))
				return false;
		} else if (op == 0 ? !extended(h, c, &s) : !standard(h, c, op, &s)) {
			return false;
		}
	}
	return !c->bad;
}

/* libdw's order: by address, a sequence's end before other rows at its
 * address, else the program's order (@pos). */
struct ordered {
	struct dw_line_row row;
	size_t pos;
};

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	int xe = !!(x->row.flags & DW_ROW_END), ye = !!(y->row.flags & DW_ROW_END);

	if (x->row.addr != y->row.addr)
		return x->row.addr < y->row.addr ? -1 : 1;
	if (xe != ye)
		return ye - xe;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool before(const struct dw_line_row *x, const struct dw_line_row *y)
{
	struct ordered a = { *x, 0 }, b = { *y, 1 };

	return cmp_ordered(&a, &b) < 0;
}

/* Sorts the rows as libdw does: nothing to do when the program's order is
 * that order already (the rule for the common case is checked row by
 * row), else a sort that keeps the program's order among equals. */
static void sort_rows(struct dw_line_rows *o)
{
	struct ordered *v;
	size_t i;

	for (i = 1; i < o->n && before(&o->v[i - 1], &o->v[i]); i++)
		;
	if (i >= o->n)
		return;
	v = xmalloc(o->n * sizeof(*v));
	for (i = 0; i < o->n; i++)
		v[i] = (struct ordered){ o->v[i], i };
	qsort(v, o->n, sizeof(*v), cmp_ordered);
	for (i = 0; i < o->n; i++)
		o->v[i] = v[i].row;
	free(v);
}

static void rows_free(struct dw_line_rows *o)
{
	if (!o || o == &unreadable)
		return;
	for (size_t i = 0; i < o->n_files; i++)
		free(o->files[i]);
	free(o->files);
	free(o->v);
	free(o);
}

/* The table at @off of the .debug_line of @cudie's Dwarf; NULL when not
 * read here. */
static struct dw_line_rows *read_table(Dwarf_Die *cudie, uint64_t off, uint8_t addr_size)
{
	Dwarf *dw = dwarf_cu_getdwarf(cudie->cu);
	struct lr_header h = { .elf = dwarf_getelf(dw), .addr_size = addr_size };
	struct dw_line_rows *o = xcalloc(1, sizeof(*o));
	struct dw_cursor c;
	Dwarf_Attribute a;
	bool ok;

	h.out = o;
	h.comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	ok = elf_section_cursor(h.elf, ".debug_line", &c) && off < (uint64_t)(c.end - c.p);
	if (ok) {
		c.p += off;
		ok = read_header(&h, &c) && run_program(&h, &c);
	}
	free(h.dirs);
	if (!ok) {
		rows_free(o);
		return NULL;
	}
	sort_rows(o);
	/* libdw marks the last row an end of sequence, whatever it is */
	if (o->n)
		o->v[o->n - 1].flags |= DW_ROW_END;
	return o;
}

static void cache_destroy(void *data)
{
	struct rows_cache *c = data;

	for (size_t i = 0; i < c->by_unit.cap; i++)
		rows_free((struct dw_line_rows *)(uintptr_t)c->by_unit.slots[i].val);
	idmap_release(&c->by_unit);
	free(c);
}

const struct dw_line_rows *dw_unit_line_rows(struct dw_module *m, Dwarf_Die *cudie)
{
	struct dw_ext *ext = &m->ext[DW_EXT_LINEROWS];
	struct rows_cache *c = ext->data;
	struct dw_line_rows *o;
	Dwarf_Attribute attr;
	Dwarf_Word off;
	Dwarf_Die die;
	uint8_t addr_size = 8, unit_type = 0;

	if (dwarf_formudata(dwarf_attr(cudie, DW_AT_stmt_list, &attr), &off) != 0 ||
	    dwarf_cu_info(cudie->cu, NULL, &unit_type, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial) ||
	    dwarf_cu_getdwarf(cudie->cu) != dw_module_dwarf(m))
		return NULL; /* a split unit's, a supplementary file's: offsets of another table */
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		ext->data = c;
		ext->destroy = cache_destroy;
	}
	o = idmap_get_ptr(&c->by_unit, off + 1);
	if (!o) {
		dwarf_cu_die(cudie->cu, &die, NULL, NULL, &addr_size, NULL, NULL, NULL);
		o = read_table(cudie, off, addr_size);
		idmap_put_ptr(&c->by_unit, off + 1, o ? o : &unreadable);
	}
	return o == &unreadable ? NULL : o;
}
