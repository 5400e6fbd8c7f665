/* dropped.c - the line-table rows of code the linker dropped (see
 * dw_line_dropped in module_priv.h).
 *
 * A function the linker discards (--gc-sections, a duplicate COMDAT copy)
 * keeps its debug info, with its addresses resolved to 0: its DW_AT_low_pc
 * is 0 and its line sequence starts at 0 and runs for the function's
 * length.  libdw merges every sequence of a unit's line table into one
 * array sorted by address, so such a sequence's rows sit among the rows
 * of the code that really is at those addresses, and a lookup takes the
 * dropped function's line for the real code's (gdb skips a sequence that
 * starts at 0 when nothing is loaded at 0).  libdw does not say which
 * sequence a row came from, so this reads the unit's line program once:
 * the rows of every sequence that starts at address 0 are recorded as
 * (address, file, line), and a row of libdw's array that matches one is
 * dropped code.  Only addresses, files and lines are followed; everything
 * else the program says is skipped.
 */
#include "dwarf/cursor.h"
#include "dwarf/module_priv.h"
#include "util/idmap.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct row_key {
	uint64_t addr;
	uint64_t file;
	int64_t line;
};

struct dropped_rows {
	struct row_key *v; /* sorted by address */
	size_t n, cap;
};

struct dropped_cache {
	struct idmap by_unit;  /* stmt_list offset + 1 -> struct dropped_rows */
};

/* The header fields the state machine needs. */
struct lp_header {
	uint8_t min_insn, line_range, opcode_base, addr_size;
	int8_t line_base;
	const uint8_t *std_lengths;
};

/* The line program state: where the current row is, and whether its
 * sequence started at 0. */
struct lp_state {
	uint64_t addr, file;
	int64_t line;
	bool first, from_zero;
};

static void reset(struct lp_state *s)
{
	*s = (struct lp_state){ .file = 1, .line = 1, .first = true };
}

static void emit(struct lp_state *s, struct dropped_rows *out)
{
	if (s->first) {
		s->from_zero = s->addr == 0;
		s->first = false;
	}
	if (!s->from_zero)
		return;
	out->v = xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
	out->v[out->n++] = (struct row_key){ s->addr, s->file, s->line };
}

static void extended(struct dw_cursor *r, const struct lp_header *h, struct lp_state *s,
		     struct dropped_rows *out)
{
	uint64_t len = dw_read_uleb(r);
	const uint8_t *next = r->p + len;
	uint8_t op;

	if (len == 0 || len > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return;
	}
	op = (uint8_t)dw_read_fixed(r, 1);
	if (op == DW_LNE_end_sequence) {
		emit(s, out);
		reset(s);
	} else if (op == DW_LNE_set_address) {
		s->addr = dw_read_fixed(r, len - 1 < 8 ? (unsigned)(len - 1) : h->addr_size);
	}
	r->p = next;
}

static void standard(struct dw_cursor *r, const struct lp_header *h, uint8_t op, struct lp_state *s,
		     struct dropped_rows *out)
{
	switch (op) {
	case DW_LNS_copy: emit(s, out); break;
	case DW_LNS_advance_pc: s->addr += dw_read_uleb(r) * h->min_insn; break;
	case DW_LNS_advance_line: s->line += dw_read_sleb(r); break;
	case DW_LNS_set_file: s->file = dw_read_uleb(r); break;
	case DW_LNS_const_add_pc: s->addr += (uint64_t)((255 - h->opcode_base) / h->line_range) * h->min_insn; break;
	case DW_LNS_fixed_advance_pc: s->addr += dw_read_fixed(r, 2); break;
	default:
		for (unsigned i = 0; i < h->std_lengths[op - 1]; i++)
			dw_read_uleb(r);
	}
}

static void run_program(struct dw_cursor *r, const struct lp_header *h, struct dropped_rows *out)
{
	struct lp_state s;

	reset(&s);
	while (r->p < r->end && !r->bad) {
		uint8_t op = (uint8_t)dw_read_fixed(r, 1);

		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;

			s.addr += (uint64_t)(adj / h->line_range) * h->min_insn;
			s.line += h->line_base + (int)(adj % h->line_range);
			emit(&s, out);
		} else if (op == 0) {
			extended(r, h, &s, out);
		} else {
			standard(r, h, op, &s, out);
		}
	}
}

/* The unit's header at @r (its unit length read: @r ends at the unit's
 * end); false when it is not one this reader knows. */
static bool read_header(struct dw_cursor *r, bool is64, uint8_t cu_addr_size, struct lp_header *h)
{
	unsigned version = (unsigned)dw_read_fixed(r, 2);
	uint64_t header_len;
	const uint8_t *program;

	h->addr_size = cu_addr_size;
	if (version < 2 || version > 5)
		return false;
	if (version >= 5) {
		h->addr_size = (uint8_t)dw_read_fixed(r, 1);
		dw_read_fixed(r, 1); /* segment selector size */
	}
	header_len = dw_read_fixed(r, is64 ? 8 : 4);
	if (header_len > (uint64_t)(r->end - r->p))
		return false;
	program = r->p + header_len;
	h->min_insn = (uint8_t)dw_read_fixed(r, 1);
	if (version >= 4)
		dw_read_fixed(r, 1); /* maximum operations per instruction: 1 on x86 */
	dw_read_fixed(r, 1);         /* default_is_stmt */
	h->line_base = (int8_t)dw_read_fixed(r, 1);
	h->line_range = (uint8_t)dw_read_fixed(r, 1);
	h->opcode_base = (uint8_t)dw_read_fixed(r, 1);
	h->std_lengths = r->p;
	if (r->bad || !h->line_range || !h->opcode_base || h->opcode_base - 1 > program - r->p ||
	    (h->addr_size != 4 && h->addr_size != 8))
		return false;
	r->p = program;
	return true;
}

static int cmp_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static const uint8_t *line_section(Dwarf *dw, size_t *size)
{
	Elf *elf = dwarf_getelf(dw);
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".debug_line"))
			continue;
		d = elf_getdata(scn, NULL);
		*size = d ? d->d_size : 0;
		return d ? d->d_buf : NULL;
	}
	return NULL;
}

/* The dropped rows of the line table at @off of .debug_line. */
static struct dropped_rows *read_unit(Dwarf *dw, uint64_t off, uint8_t addr_size)
{
	struct dropped_rows *out = xcalloc(1, sizeof(*out));
	size_t size = 0;
	const uint8_t *sec = line_section(dw, &size);
	struct dw_cursor r;
	struct lp_header h;
	uint64_t len;
	bool is64;

	if (!sec || off >= size)
		return out;
	r = (struct dw_cursor){ .p = sec + off, .end = sec + size };
	len = dw_read_fixed(&r, 4);
	is64 = len == 0xffffffffu;
	if (is64)
		len = dw_read_fixed(&r, 8);
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return out;
	r.end = r.p + len;
	if (read_header(&r, is64, addr_size, &h))
		run_program(&r, &h, out);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_key);
	return out;
}

static void cache_destroy(void *data)
{
	struct dropped_cache *c = data;

	for (size_t i = 0; i < c->by_unit.cap; i++) {
		struct dropped_rows *d = (struct dropped_rows *)(uintptr_t)c->by_unit.slots[i].val;

		if (d) {
			free(d->v);
			free(d);
		}
	}
	idmap_release(&c->by_unit);
	free(c);
}

static struct dropped_rows *unit_rows(struct dw_module *m, Dwarf_Die *cu)
{
	struct dw_ext *ext = &m->ext[DW_EXT_DROPPED];
	struct dropped_cache *c = ext->data;
	Dwarf_Attribute attr;
	Dwarf_Word off;
	struct dropped_rows *d;
	Dwarf_Die die;
	uint8_t addr_size = 8;

	if (dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &attr), &off) != 0)
		return NULL;
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		ext->data = c;
		ext->destroy = cache_destroy;
	}
	d = idmap_get_ptr(&c->by_unit, off + 1);
	if (!d) {
		dwarf_cu_die(cu->cu, &die, NULL, NULL, &addr_size, NULL, NULL, NULL);
		d = read_unit(dwarf_cu_getdwarf(cu->cu), off, addr_size);
		idmap_put_ptr(&c->by_unit, off + 1, d);
	}
	return d;
}

bool dw_line_dropped(struct dw_module *m, Dwarf_Die *cu, Dwarf_Line *line)
{
	struct dropped_rows *d = unit_rows(m, cu);
	struct row_key k = { 0 };
	Dwarf_Addr addr = 0;
	Dwarf_Files *files;
	size_t idx = 0;
	int lineno = 0;

	if (!d || !d->n)
		return false;
	dwarf_lineaddr(line, &addr);
	dwarf_lineno(line, &lineno);
	if (dwarf_line_file(line, &files, &idx) != 0)
		return false;
	k = (struct row_key){ addr, idx, lineno };
	return bsearch(&k, d->v, d->n, sizeof(*d->v), cmp_key) != NULL;
}
