/* vars.h - the traced program's variables at a pc: where each lives
 * (register, stack slot, global address) and its C type.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 * This header uses plain types so the IR generator and the renderer can
 * read locations and types without seeing libdw: a variable's type is
 * types.h's, its location location.h's.
 *
 * Lookup follows C scoping at the pc: the innermost lexical block or
 * inlined call first, out to the function's parameters, then the
 * compile unit's statics, then the module's globals (declarations are
 * looked through to their definitions).  Types are built once per DIE and
 * cached in the module: every struct dw_type pointer is borrowed and
 * valid until dw_module_free() (or, for a type completed from another
 * module, until that module is freed).
 */
#ifndef WRAITH_DWARF_VARS_H
#define WRAITH_DWARF_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/location.h"
#include "dwarf/types.h"

struct dw_module;

enum dw_var_scope {
	DW_VAR_PARAMETER,
	DW_VAR_LOCAL,
	DW_VAR_GLOBAL,
};

struct dw_var {
	const char *name;           /* borrowed from libdw */
	enum dw_var_scope scope;
	struct dw_loc loc;          /* valid at the pc asked for */
	const struct dw_type *type; /* borrowed from the module's type cache */
	bool external;              /* DW_AT_external: other units may name it */
	/* The function whose variable it is when that is not the one the
	 * probe stands in: a call inlined there at the pc, or a function the
	 * probe's is inlined into (dw_var_find_outer); NULL otherwise.
	 * Borrowed from libdw. */
	const char *frame;
	/* dw_frame_vars(), a parameter of a function (not of an inlined
	 * call): the DWARF register it is in at the function's entry, by its
	 * location there, +1; 0 when none (a caller's call site may say what
	 * was passed in it: dw_call_site_value()). */
	unsigned entry_reg;
	/* A C variable-length array (dw_type_is_vla(), or a pointer to one):
	 * the length of each of its dimensions of variable length, outermost
	 * first, as a location whose value is the count at the pc (its
	 * DW_AT_count, or DW_AT_upper_bound + 1, read where the variable is
	 * read); DW_LOC_OPTIMIZED_OUT where the pc has none. */
#define DW_VLA_DIMS 4
	struct dw_loc vla_len[DW_VLA_DIMS];
	unsigned n_vla;
};

/* Where a probe stands, for the names it sees. */
struct dw_at {
	uint64_t pc;
	/* The DIE offset of the function instance the probe stands in (a
	 * DW_TAG_subprogram or DW_TAG_inlined_subroutine: dw_site.scope), or
	 * 0 for the innermost at pc.  It need not hold pc by its address
	 * ranges: an inlined call may be there at some location views only. */
	uint64_t scope;
	/* The location view at pc (GCC's -gvariable-location-views) the probe
	 * stands at, when known (dw_site.view): variables' location lists
	 * are read at that view. */
	bool has_view;
	unsigned view;
};

/* Find variable @name visible at @pc.  Returns 0, -ENOENT when no variable
 * of that name is visible, or -WR_ENODWARF without debug info.  A global
 * the module only declares (an extern from a header) is -ENOENT: its
 * definition is in another module (dw_var_find_global). */
int dw_var_find(struct dw_module *m, uint64_t pc, const char *name, struct dw_var *out);

/* The same for a probe standing at @at: the names of the function
 * instance it stands in first (its blocks innermost first, then its
 * parameters and locals), then those of the calls inlined into it at the
 * pc (innermost first; out->frame names the call), then its unit's
 * statics and the module's globals. */
int dw_var_find_at(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out);

/* Variable @name of a function the probe's function is inlined into, at
 * @at: the innermost such function that has it (out->frame names it).
 * gdb needs `up` for these.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_var_find_outer(struct dw_module *m, const struct dw_at *at, const char *name, struct dw_var *out);

/* The definition of global variable @name in @m (one with a location or a
 * constant value), as a DW_VAR_GLOBAL; its DW_LOC_MEM_ADDR is relative
 * to @m's load bias.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_var_find_global(struct dw_module *m, const char *name, struct dw_var *out);

/* Names visible at @pc (locals and parameters, innermost first), for
 * error hints and completion.  Calls @fn for each; stops early when it
 * returns non-zero. */
void dw_var_foreach(struct dw_module *m, uint64_t pc, int (*fn)(const struct dw_var *v, void *ctx),
		    void *ctx);
/* The same, in dw_var_find_at()'s order. */
void dw_var_foreach_at(struct dw_module *m, const struct dw_at *at,
		       int (*fn)(const struct dw_var *v, void *ctx), void *ctx);

/* The enumerator @name (an enum constant, as `BLUE` in C), looked up in
 * the compile unit of @pc first, then in every unit: its enum type and its
 * value.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_enumerator_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		       int64_t *value);

/* The function @name defined in the module (the unit of @pc first): its
 * type (DW_TYPE_FUNCTION, named as gdb names it: "int (int, char **)")
 * and its ELF address.  Returns 0, -ENOENT, or -WR_ENODWARF. */
int dw_function_find(struct dw_module *m, uint64_t pc, const char *name, const struct dw_type **type,
		     uint64_t *vaddr);
/* The variables of one frame's function at @pc, for a backtrace with
 * frame values: @level counts function scopes from the innermost, as
 * dw_symbolize orders a frame's inline chain (0 = the innermost inlined
 * call, the last = the function itself); DW_FRAME_ALL: every one of
 * them, innermost first.  Calls @fn with its parameters
 * (when @params) in declaration order, then its locals (when @locals),
 * innermost block first; stops early when @fn returns non-zero. */
#define DW_FRAME_ALL (~0u)
void dw_frame_vars(struct dw_module *m, uint64_t pc, unsigned level, bool params, bool locals,
		   int (*fn)(const struct dw_var *v, void *ctx), void *ctx);
/* Whether the function holding @pc was compiled by GCC with its
 * variables tracked (it describes all its calls), whose locations at a
 * call's last byte say where each value is once the call returns, by
 * what the callee really changes: with -fipa-ra a caller-saved register
 * a same-unit callee (and everything it calls) leaves alone still holds
 * the caller's value, and the location says so; a callee it does not
 * know ends the range before the call returns.  clang's name the
 * register the value was in before the call; GCC's, in a function too
 * big to track, a parameter's incoming register for the whole
 * function. */
bool dw_frame_knows_callee_clobbers(struct dw_module *m, uint64_t pc);
/* The same for a caller's frame stopped in a call: @pc is the call's last
 * byte, @ret_pc the address it returns to.  A variable in a register the
 * call may change at @pc, and in one it preserves (or the frame's memory)
 * at @ret_pc, is located by @ret_pc's location (see vars.c). */
void dw_frame_vars_returning(struct dw_module *m, uint64_t pc, uint64_t ret_pc, unsigned level, bool params,
			     bool locals, int (*fn)(const struct dw_var *v, void *ctx), void *ctx);

/* The call that returns to @return_pc (an address of @m: a frame's
 * return address less the module's bias), by its call site
 * (DW_TAG_call_site): what it calls and what it passed in one register.
 * Locations are in the caller's frame (its registers and CFA); a value
 * the caller passed on from its own entry is what its callers passed, by
 * the return address at that CFA - 8, or what @entry says (a caller that
 * left by a tail call has no return address of its own: the jump into it
 * says, which only the tracer knows). */
struct dw_entry_values {
	/* What the caller had on entry in DWARF register @reg, in *@value;
	 * false when nothing says. */
	bool (*value)(void *ctx, int reg, uint64_t *value);
	void *ctx;
};
struct dw_call_site {
	/* A direct call: the called function's linkage name, else its name
	 * (borrowed); NULL for a call through a pointer. */
	const char *callee;
	/* A call through a pointer: the address it called, as a value;
	 * DW_LOC_OPTIMIZED_OUT when the call site does not say. */
	struct dw_loc target;
	struct dw_loc value;   /* what it passed in the register */
};
/* The call site returning to @return_pc and what it passed in DWARF
 * register @reg; @entry (may be NULL) gives the caller's entry values.
 * Returns 0, or -ENOENT when no call site there says. */
int dw_call_site_value(struct dw_module *m, uint64_t return_pc, int reg, const struct dw_entry_values *entry,
		       struct dw_call_site *out);

/* The function (not an inlined call) whose code holds @pc: its linkage
 * name, else its name (borrowed), and its entry address.  False when
 * none does. */
bool dw_function_at(struct dw_module *m, uint64_t pc, const char **key, uint64_t *entry);

/* The return addresses (of @m) of @m's calls of the function named
 * @callee (a linkage name, else its name: dw_function_at()'s key) that
 * its call sites (DW_TAG_call_site) describe as direct calls, not tail
 * calls; at most @max into @out.  Returns how many.  A function of
 * another unit with the same name may be among them: the caller checks
 * the call instruction. */
size_t dw_call_returns(struct dw_module *m, const char *callee, uint64_t *out, size_t max);
/* Whether @m's debug information has call sites (DW_TAG_call_site) at
 * all: GCC and clang write them from -O1 up, none at -O0. */
bool dw_module_has_call_sites(struct dw_module *m);

/* The other modules whose calls into a module a probe there can tell
 * apart by their return addresses: the other modules of the one process
 * traced, each with its load bias less @asking's.  @fn gives the @i-th
 * into *@out and *@delta, false past the last (and always, when more than
 * one process is traced: their libraries lie at different distances).
 * An entry value (DW_OP_entry_value) then also takes what those modules'
 * direct calls of the function passed.  Set once, before locations are
 * read; it must not call back into @asking. */
typedef bool (*dw_caller_modules)(void *ctx, struct dw_module *asking, size_t i, struct dw_module **out,
				  int64_t *delta);
void dw_module_set_caller_modules(struct dw_module *m, dw_caller_modules fn, void *ctx);

#endif
