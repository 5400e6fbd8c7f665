/* module_priv.h - the inside of struct dw_module, for the files of src/dwarf only.
 *
 * Layer rule: included only by files in src/dwarf/.
 * Each dwarf/ unit that caches per-module state (the function index, the
 * symbolization cache) keeps it in its own extension slot, created lazily
 * and freed by dw_module_free() through the slot's destructor.
 */
#ifndef WRAITH_DWARF_MODULE_PRIV_H
#define WRAITH_DWARF_MODULE_PRIV_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

#include "dwarf/module.h"
#include "dwarf/module_cfi.h"

struct dw_load_segment {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
	uint32_t flags; /* PF_X | PF_W | PF_R */
};

enum dw_ext_slot {
	DW_EXT_RESOLVE,
	DW_EXT_SYMBOLIZE,
	DW_EXT_VARS,
	DW_EXT_TAILCALL,
	DW_EXT_UNITS,
	DW_EXT_CALLERS,
	DW_EXT_DROPPED,
	DW_EXT_LINEROWS,
	DW_EXT_COUNT_
};

/* Calls @fn with each symbol of @m's dynamic symbol table (its name,
 * borrowed from the file) until it returns true.  Returns 1 when @fn
 * stopped the walk, 0 when it ran to the end, -1 when the module has no
 * dynamic symbol table that can be read (symtab.c). */
typedef bool (*dw_dynsym_fn)(const char *name, const GElf_Sym *sym, void *ctx);
int dw_module_dynamic_symbols(struct dw_module *m, dw_dynsym_fn fn, void *ctx);

struct dw_ext {
	void *data;
	void (*destroy)(void *data);
};

struct dw_module {
	char *path;                 /* owned */
	const char *name;           /* points into path */
	int fd;
	Elf *elf;                   /* our own handle on the file, for headers */
	bool has_interp;            /* PT_INTERP: a program, not a library */
	uint64_t tls_vaddr, tls_memsz, tls_align; /* PT_TLS; tls_align 0 without one */
	uint64_t tls_filesz;
	uint64_t dynamic_vaddr;     /* PT_DYNAMIC; 0 without one */
	uint64_t relro_vaddr, relro_memsz; /* PT_GNU_RELRO; memsz 0 without one */
	bool is_dyn;                /* ET_DYN: PIE or shared library */
	struct dw_load_segment *loads; /* owned */
	size_t n_loads;
	Dwfl *dwfl;                 /* one-module session at bias 0 */
	Dwfl_Module *mod;
	int dwarf_state;            /* 0 not tried, 1 found, -1 none */
	Dwarf *dwarf;               /* borrowed from dwfl */
	char *debug_source;         /* owned, see dw_module_debug_source */
	/* Where its debug info comes from (debugfile.c) */
	bool debug_searched;
	int debug_origin;           /* enum dw_debug_origin */
	char *debug_path;           /* owned: the separate debug file, or NULL */
	char *build_id_hex;         /* owned, "" when none */
	struct dw_ext ext[DW_EXT_COUNT_];
};

/* The path of the module's separate debug file (debugfile.c: explicit,
 * build-id directory, .gnu_debuglink, debuginfod; checked to belong to the
 * module), or NULL.  Caller frees.  Unlike libdwfl's own search this
 * touches no state of the Dwfl module. */
char *dw_module_find_debug_file(struct dw_module *m);

/* @file as named by unit @cudie (a line table or decl_file entry), made
 * absolute with the unit's DW_AT_comp_dir when it is relative and the
 * directory absolute, and normalised (dw_path_normalize).  Returns a new
 * string; caller frees. */
char *dw_unit_path(Dwarf_Die *cudie, const char *file);

/* The compile unit whose code holds @pc, into @cudie: from
 * .debug_aranges when it answers, else from every unit's own ranges (clang
 * emits no .debug_aranges).  For a skeleton unit, the split unit it stands
 * for.  False when no unit holds @pc or the module has no DWARF. */
bool dw_unit_at(struct dw_module *m, uint64_t pc, Dwarf_Die *cudie);

/* Walk the units that hold code and data of @dw: start with *@cu = NULL;
 * each call puts the next unit's DIE in @die and returns true, false at the
 * end.  A skeleton unit gives the split unit it stands for when that can
 * be opened (else the skeleton itself); compile and partial units are
 * given as they are, and type units too when @with_types. */
bool dw_next_unit(Dwarf *dw, Dwarf_CU **cu, Dwarf_Die *die, bool with_types);

/* The DIEs of unit @cudie whose code holds @pc, outermost first: the
 * function (the innermost when functions nest, as a lambda in its
 * definer), then the lexical blocks and inlined calls inside it, as the
 * concrete tree nests them.  Fills at most @max; returns how many (0 when
 * no function holds @pc).  Unlike dwarf_getscopes() it works when an
 * inlined function's definition is in another unit (LTO). */
int dw_pc_scopes(Dwarf_Die *cudie, uint64_t pc, Dwarf_Die *out, int max);
/* The same, with DIE @anchor (an offset; 0: none) and the scopes around it
 * taken in although their code does not hold @pc: the inlined call a
 * probe stands in may hold its entry pc only at some location views (an
 * empty address range), which dwarf_haspc() cannot see. */
int dw_pc_scopes_anchored(Dwarf_Die *cudie, uint64_t pc, Dwarf_Off anchor, Dwarf_Die *out, int max);

/* Whether row @line of unit @cu's line table is code the linker dropped:
 * a row of a sequence that starts at address 0 (dropped.c).  Such rows
 * sit among the real code's rows at their addresses in libdw's array;
 * a lookup must pass over them as if they were not there. */
bool dw_line_dropped(struct dw_module *m, Dwarf_Die *cu, Dwarf_Line *line);

/* One row of a unit's line table as linerows.c reads it. */
struct dw_line_row {
	uint64_t addr;
	uint32_t file;  /* index into dw_line_rows.files */
	int32_t line;
	uint16_t col;
	uint16_t flags; /* DW_ROW_* */
	uint32_t disc;  /* discriminator */
};
enum { DW_ROW_STMT = 1, DW_ROW_END = 2, DW_ROW_PROLOGUE_END = 4, DW_ROW_DROPPED = 8 };

struct dw_line_rows {
	struct dw_line_row *v; /* in libdw's order: by address, ends first */
	size_t n;
	char **files;          /* names as dwarf_linesrc() gives them */
	size_t n_files;
};

/* The rows of unit @cudie's line table, the same rows in the same order
 * as dwarf_getsrclines() gives, with DW_ROW_DROPPED on those of sequences
 * that start at address 0 (dw_line_dropped), read without libdw (it
 * decodes and sorts the whole table through allocated rows: slow for the
 * big tables of -flto units).  NULL when this reader does not read that
 * table: ask libdw.  Borrowed from @m, valid until dw_module_free(). */
const struct dw_line_rows *dw_unit_line_rows(struct dw_module *m, Dwarf_Die *cudie);

/* Whether a DWARF address range [@lo, ...) holds code: the linker leaves
 * a dropped function's range at 0, where no module has code. */
static inline bool dw_range_live(uint64_t lo)
{
	return lo != 0;
}
/* Where execution enters @die (a function or an inlined call):
 * DW_AT_entry_pc (an address, or in DWARF 5 an offset from the start),
 * else DW_AT_low_pc, else the first range.  False when @die has no
 * address. */
bool dw_die_entry_pc(Dwarf_Die *die, Dwarf_Addr *pc);

/* Whether unit @cudie is C++ (or Objective-C++): its names are scoped and
 * its functions may nest (lambdas). */
bool dw_unit_is_cxx(Dwarf_Die *cudie);
/* Whether unit @cudie is Rust: names scoped by module paths, functions in
 * namespaces and types, values shown as rust-gdb shows them.  The second
 * asks of any DIE (its unit's language). */
bool dw_unit_is_rust(Dwarf_Die *cudie);
bool dw_die_is_rust(Dwarf_Die *die);

/* The module's DWARF (main or separate), or NULL.  Borrowed. */
Dwarf *dw_module_dwarf(struct dw_module *m);

/* debugfile.c: the directory of dw_debug_config.index_dir, or NULL.
 * Borrowed, until dw_debug_config_release(). */
const char *dw_debug_index_dir(void);
/* globalnames.c: close the cache of global names (pruned if this run
 * stored to it); dw_debug_config_release() calls it. */
void dw_global_names_close(void);

#endif
