/* resolve_files.c - a bound on where a unit's line table has rows of a
 * source file, read raw (see rs_unit_scan in resolve_priv.h).
 *
 * A file:line lookup must find the first line at or after the one asked
 * for that has code, in every unit, and libdw 0.188 decodes a unit's whole
 * line table (rows allocated, then sorted) for dwarf_getsrclines() and even
 * for dwarf_getsrcfiles().  For a program of a few hundred units that was
 * most of the lookup, though few units have rows near the line.  So the
 * header's file list and the line program are read here, raw and without
 * allocating rows, tracking only the file, line and is_stmt registers; the
 * lookup hands libdw only the units whose bound could still matter, and
 * libdw decides those exactly.  Whatever this reader is not sure of (no
 * .debug_line, a compressed section, skeleton or split units, an unknown
 * form or version, DW_LNE_define_file, a truncated table) answers "maybe",
 * never "no".
 */
#include "dwarf/cursor.h"
#include "dwarf/elfsec.h"
#include "dwarf/resolve_priv.h"

#include "util/xalloc.h"

#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Does file name @s end in the component @base? */
static bool names_base(const char *s, const char *base)
{
	const char *slash = s ? strrchr(s, '/') : NULL;
	const char *last = slash ? slash + 1 : s;

	if (!s)
		return true;
	/* A name ending in a directory leaves its last component to libdw. */
	if (!*last || !strcmp(last, ".") || !strcmp(last, ".."))
		return true;
	return strcmp(last, base) == 0;
}

struct header {
	struct dw_cursor c;
	Elf *elf;
	unsigned offset_size;
	const char *base;
	struct dw_cursor strs[2]; /* .debug_line_str, .debug_str: looked up once */
	int have[2];           /* 0 not looked up, 1 there, -1 not */
	bool *match;           /* by file register value: the name ends in base */
	size_t n_match, cap_match;
	bool any;
	unsigned version;
	int8_t line_base;
	uint8_t line_range, opcode_base, default_stmt;
	const unsigned char *lengths; /* standard opcode lengths */
	struct dw_cursor program;
};

/* A string of DWARF 5 form @form; *@known false for a form not read here. */
static const char *form_string(struct header *h, unsigned form, bool *known)
{
	static const char *const names[2] = { ".debug_line_str", ".debug_str" };
	struct dw_cursor sec;
	uint64_t off;
	int k = form == DW_FORM_line_strp ? 0 : 1;

	*known = true;
	if (form == DW_FORM_string)
		return dw_read_cstr(&h->c);
	if (form != DW_FORM_line_strp && form != DW_FORM_strp) {
		*known = false;
		return NULL;
	}
	off = dw_read_fixed(&h->c, h->offset_size);
	if (!h->have[k])
		h->have[k] = elf_section_cursor(h->elf, names[k], &h->strs[k]) ? 1 : -1;
	sec = h->strs[k];
	if (h->c.bad || h->have[k] < 0 || off >= (uint64_t)(sec.end - sec.p)) {
		*known = false;
		return NULL;
	}
	sec.p += off;
	return dw_read_cstr(&sec);
}

/* Skips a value of form @form; false for a form not read here. */
static bool skip_form(struct dw_cursor *c, unsigned form, unsigned offset_size)
{
	static const struct { unsigned form, size; } fixed[] = {
		{ DW_FORM_data1, 1 }, { DW_FORM_data2, 2 }, { DW_FORM_data4, 4 },
		{ DW_FORM_data8, 8 }, { DW_FORM_data16, 16 },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (form == fixed[i].form) {
			dw_skip(c, fixed[i].size);
			return true;
		}
	if (form == DW_FORM_udata) {
		dw_read_uleb(c);
	} else if (form == DW_FORM_block) {
		dw_skip(c, dw_read_uleb(c));
	} else if (form == DW_FORM_line_strp || form == DW_FORM_strp) {
		dw_read_fixed(c, offset_size);
	} else if (form == DW_FORM_string) {
		dw_read_cstr(c);
	} else {
		return false;
	}
	return true;
}

/* Files entry @idx (the file register value naming it) as matching or not. */
static void set_match(struct header *h, uint64_t idx, bool m)
{
	if (idx > 1u << 20) {
		h->c.bad = true;
		return;
	}
	if (idx >= h->n_match) {
		h->match = xgrow(h->match, &h->cap_match, idx + 1, sizeof(*h->match));
		memset(h->match + h->n_match, 0, (idx + 1 - h->n_match) * sizeof(*h->match));
		h->n_match = idx + 1;
	}
	h->match[idx] = m;
	h->any |= m;
}

/* Reads one DWARF 5 entry list (directories, or with @files the files,
 * numbered from 0); false when unsure. */
static bool v5_entries(struct header *h, bool files)
{
	uint64_t fmt[32][2], count;
	unsigned n_fmt = (unsigned)dw_read_fixed(&h->c, 1);

	if (n_fmt > 32)
		return false;
	for (unsigned i = 0; i < n_fmt; i++) {
		fmt[i][0] = dw_read_uleb(&h->c);
		fmt[i][1] = dw_read_uleb(&h->c);
	}
	count = dw_read_uleb(&h->c);
	if (n_fmt == 0 && count > 0)
		return false; /* entries without fields: nothing to read */
	for (uint64_t e = 0; e < count && !h->c.bad; e++)
		for (unsigned i = 0; i < n_fmt; i++) {
			bool known;
			const char *s;

			if (!files || fmt[i][0] != DW_LNCT_path) {
				if (!skip_form(&h->c, (unsigned)fmt[i][1], h->offset_size))
					return false;
				continue;
			}
			s = form_string(h, (unsigned)fmt[i][1], &known);
			if (!known)
				return false;
			set_match(h, e, names_base(s, h->base));
		}
	return !h->c.bad;
}

/* DWARF 2 to 4: directory strings, then (name, dir, mtime, length) entries
 * numbered from 1, each list ended by an empty string. */
static bool v4_entries(struct header *h)
{
	const char *s;
	uint64_t idx = 1;

	while ((s = dw_read_cstr(&h->c)) && *s)
		;
	while ((s = dw_read_cstr(&h->c)) && *s) {
		set_match(h, idx++, names_base(s, h->base));
		dw_read_uleb(&h->c);
		dw_read_uleb(&h->c);
		dw_read_uleb(&h->c);
	}
	return !h->c.bad && s;
}

/* Reads the header at h->c: the file list into h->match, the program's
 * bytes into h->program.  False when unsure. */
static bool read_header(struct header *h)
{
	uint64_t len = dw_read_fixed(&h->c, 4), hlen;

	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = dw_read_fixed(&h->c, 8);
		h->offset_size = 8;
	}
	if (h->c.bad || len > (uint64_t)(h->c.end - h->c.p))
		return false;
	h->c.end = h->c.p + len;
	h->version = (unsigned)dw_read_fixed(&h->c, 2);
	if (h->version < 2 || h->version > 5)
		return false;
	if (h->version == 5)
		dw_skip(&h->c, 2); /* address and segment selector sizes */
	hlen = dw_read_fixed(&h->c, h->offset_size);
	if (h->c.bad || hlen > (uint64_t)(h->c.end - h->c.p))
		return false;
	h->program = (struct dw_cursor){ .p = h->c.p + hlen, .end = h->c.end };
	h->c.end = h->c.p + hlen;
	/* instruction length [, operations per instruction] */
	dw_skip(&h->c, h->version >= 4 ? 2 : 1);
	h->default_stmt = (uint8_t)dw_read_fixed(&h->c, 1);
	h->line_base = (int8_t)dw_read_fixed(&h->c, 1);
	h->line_range = (uint8_t)dw_read_fixed(&h->c, 1);
	h->opcode_base = (uint8_t)dw_read_fixed(&h->c, 1);
	h->lengths = h->c.p;
	if (h->opcode_base > 0)
		dw_skip(&h->c, h->opcode_base - 1u);
	if (h->c.bad || h->line_range == 0)
		return false;
	if (h->version < 5)
		return v4_entries(h);
	return v5_entries(h, false) && v5_entries(h, true);
}

struct regs {
	uint64_t file;
	int64_t line;
	bool stmt;
};

/* A row is emitted: a statement in a matching file counts towards
 * *@least (lines >= @line), and so does any row of @line itself (a line
 * whose rows are none a statement is probed at them). */
static void row(const struct header *h, const struct regs *r, unsigned line, unsigned *least)
{
	if ((r->stmt || r->line == (int64_t)line) && r->file < h->n_match && h->match[r->file] &&
	    r->line >= (int64_t)line && r->line <= UINT_MAX && (unsigned)r->line < *least)
		*least = (unsigned)r->line;
}

/* An extended opcode; false when unsure (DW_LNE_define_file adds a file
 * this reader does not name). */
static bool extended(struct header *h, struct dw_cursor *c, struct regs *r)
{
	uint64_t len = dw_read_uleb(c);
	const unsigned char *next = c->p + (len <= (uint64_t)(c->end - c->p) ? len : 0);
	unsigned op;

	if (len == 0 || len > (uint64_t)(c->end - c->p))
		return false;
	op = *c->p;
	if (op == DW_LNE_define_file)
		return false;
	if (op == DW_LNE_end_sequence)
		*r = (struct regs){ .file = 1, .line = 1, .stmt = h->default_stmt };
	c->p = next;
	return true;
}

/* A standard opcode other than those that emit a row; false when unsure. */
static bool standard(struct header *h, struct dw_cursor *c, unsigned op, struct regs *r)
{
	switch (op) {
	case DW_LNS_advance_line: {
		uint64_t v = 0;
		unsigned shift = 0;
		unsigned char b;

		do {
			if (c->p >= c->end)
				return false;
			b = *c->p++;
			if (shift < 64)
				v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		if (shift < 64 && (b & 0x40))
			v |= ~(uint64_t)0 << shift;
		r->line += (int64_t)v;
		return true;
	}
	case DW_LNS_set_file:
		r->file = dw_read_uleb(c);
		return true;
	case DW_LNS_negate_stmt:
		r->stmt = !r->stmt;
		return true;
	case DW_LNS_fixed_advance_pc:
		dw_skip(c, 2);
		return true;
	default:
		/* Any other opcode only moves registers this reader ignores. */
		for (unsigned i = 0; i < h->lengths[op - 1]; i++)
			dw_read_uleb(c);
		return true;
	}
}

/* Runs the line program, only for its file, line and is_stmt registers:
 * the least line >= @line of a statement row in a matching file (or
 * @line itself, when it has any row there) into *@least.  False when
 * unsure. */
static bool run_program(struct header *h, unsigned line, unsigned *least)
{
	struct dw_cursor c = h->program;
	struct regs r = { .file = 1, .line = 1, .stmt = h->default_stmt };

	while (c.p < c.end && !c.bad) {
		unsigned op = *c.p++;

		if (op >= h->opcode_base) {
			r.line += h->line_base + (int)((op - h->opcode_base) % h->line_range);
			row(h, &r, line, least);
		} else if (op == DW_LNS_copy) {
			row(h, &r, line, least);
		} else if (op == 0) {
			if (!extended(h, &c, &r))
				return false;
		} else if (!standard(h, &c, op, &r)) {
			return false;
		}
	}
	return !c.bad;
}

enum rs_scan rs_unit_scan(Dwarf_Die *cudie, const char *base, unsigned line, unsigned *least)
{
	Dwarf_Attribute attr;
	Dwarf_Word off;
	uint8_t type;
	struct header h = { .base = base };
	Dwarf *dw = dwarf_cu_getdwarf(cudie->cu);
	const unsigned char *ident;
	size_t n_ident;
	enum rs_scan res = RS_SCAN_MAYBE;

	*least = UINT_MAX;
	if (dwarf_cu_info(cudie->cu, NULL, &type, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    (type != DW_UT_compile && type != DW_UT_partial) ||
	    !dwarf_attr(cudie, DW_AT_stmt_list, &attr) || dwarf_formudata(&attr, &off) != 0 ||
	    !dw || !(h.elf = dwarf_getelf(dw)))
		return RS_SCAN_MAYBE;
	ident = (const unsigned char *)elf_getident(h.elf, &n_ident);
	if (!ident || n_ident <= EI_DATA || ident[EI_DATA] != ELFDATA2LSB ||
	    !elf_section_cursor(h.elf, ".debug_line", &h.c) || off >= (uint64_t)(h.c.end - h.c.p))
		return RS_SCAN_MAYBE;
	h.c.p += off;
	if (read_header(&h))
		res = !h.any ? RS_SCAN_NONE : run_program(&h, line, least) ? RS_SCAN_LEAST
									    : RS_SCAN_MAYBE;
	if (res == RS_SCAN_MAYBE)
		*least = UINT_MAX;
	free(h.match);
	return res;
}
