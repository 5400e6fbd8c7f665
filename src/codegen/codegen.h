/* codegen.h - LLVM IR for probes, linked with the template bitcode, emitted
 * as an in-memory BPF ELF object.
 *
 * Layer rule: codegen/ is the only directory that includes llvm-c/.  It
 * reads plans (codegen/plan.h) and the AST, and writes objects in the form
 * runtime/ loads (protocol/blob.h); LLVM errors are turned into
 * -WR_ECODEGEN with a message, never passed upward as LLVM strings, and
 * LLVM is never allowed to exit the process.  It reaches the traced
 * program's DWARF one way, through plan.h (the plan's questions, and the
 * plain data of their answers); no other file of it includes dwarf/.
 * Inside, calls go down only (doc/architecture.md, "Inside codegen/"):
 * codegen.c -> lower.c -> expressions -> the program's values ->
 * cgvalue.c -> ir.c, the IR primitives at the bottom.
 *
 * Objects: one "base" object holds the maps and the tail-called unwinder
 * step program; each probe object holds one probe program and reuses the
 * base object's maps (runtime/ does the reuse), so probes can be added and
 * removed while others run.
 */
#ifndef WRAITH_CODEGEN_CODEGEN_H
#define WRAITH_CODEGEN_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codegen/plan.h"
#include "protocol/blob.h"

struct diag;
struct strbuf;

/* The base object for @opt's transport, compiled with the templates at
 * build time, lean when @opt->base_omits has WR_BASE_NO_COUNT and
 * WR_BASE_NO_VALUES (a copy in @out, caller releases).  Returns 0. */
int codegen_base(const struct codegen_options *opt, struct bpf_blob *out);

/* The objects a session's probes were compiled to, found again by their
 * shape (probes whose code differs only in what stays on the host: print
 * text, target, id), in memory and in the probe cache on disk in @dir
 * (codegen/probe_cache.h; NULL: none), which keeps them across runs.
 * Owned by the caller, who passes it in codegen_options.cache and frees
 * it with codegen_cache_free() (NULL is a no-op). */
struct codegen_cache *codegen_cache_new(const char *dir);
void codegen_cache_free(struct codegen_cache *cache);

/* A print argument of a probe as the renderer needs to show it. */
struct codegen_arg {
	unsigned print;             /* the print statement's index in the probe */
	unsigned arg;               /* the wire argument's index in that print */
	const struct dw_type *type; /* its type, borrowed like the plan's; or NULL */
	const char *frame;          /* the function whose variable it reads when not
				     * the probe's own (dw_var.frame), borrowed; or NULL */
};

/* A print argument a lenient site cannot give (plan.lenient): it prints
 * a marker instead (<unreadable at this site>, <no debug info>). */
struct codegen_marker {
	unsigned line, col; /* the argument in the script */
	char *why;          /* the error the argument has here; owned */
};

/* The print arguments of a probe, one entry per wire argument, in the
 * order the lowering met them, and those a lenient site cannot give.
 * Release with codegen_args_release(). */
struct codegen_args {
	struct codegen_arg *v; /* owned */
	size_t n, cap;
	struct codegen_marker *markers; /* owned */
	size_t n_markers, cap_markers;
};

void codegen_args_release(struct codegen_args *args);

/* Build the object of one probe.  Script errors found while lowering (an
 * unknown variable, a type mismatch) return -WR_ESEMANTIC with @diag set at
 * the offending expression; LLVM failures return -WR_ECODEGEN.  When @ir is
 * not NULL the optimised IR text is appended to it (for --dry-run -v).
 * Without @ir, a probe shaped like one in @opt->cache, or found in its
 * probe cache on disk, is not compiled again; out->origin says where the
 * object came from, and a compiled one is stored in that cache.  A cache
 * directory that cannot be used is only a -v line.
 * When @args is not NULL it gets the probe's print arguments (caller
 * releases), also when lowering stopped at an error: those it reached. */
int codegen_probe(const struct codegen_options *opt, const struct probe_plan *plan,
		  struct bpf_blob *out, struct codegen_args *args, struct diag *diag,
		  struct strbuf *ir);

/* What one site of a probe of several sites (plan.site_table) lowers to:
 * its shape key (sites of one key are one *form*: their code differs only
 * in their site table entry) and that entry's values.  Release with
 * codegen_shape_release(). */
struct codegen_shape {
	char *key; /* owned */
	uint64_t params[WR_SITE_PARAMS];
	unsigned n_params;
};

/* Lower @plan for its shape only (nothing compiled): 0, or the errors of
 * codegen_probe(); @args as there. */
int codegen_shape(const struct codegen_options *opt, const struct probe_plan *plan,
		  struct codegen_shape *out, struct codegen_args *args, struct diag *diag);
void codegen_shape_release(struct codegen_shape *s);

/* One object for the @n forms of a probe's sites (n >= 2; plans[i] one
 * site of form i, shapes[i] its shape, each plan with site_table): its one
 * program runs form i at a site whose table entry has i in
 * v[WR_SITE_FORM] (the caller puts it there, after the form's params).
 * Found again, as codegen_probe() does, in @opt->cache and on disk under
 * the forms' keys.  out->site_params is not set.  Returns 0,
 * -WR_ECODEGEN (say the program is too big), or -WR_ESEMANTIC; the caller
 * can then compile the forms one by one. */
int codegen_forms(const struct codegen_options *opt, const struct probe_plan *const *plans,
		  const struct codegen_shape *const *shapes, size_t n, struct bpf_blob *out,
		  struct diag *diag);

/* A constant expression's C type and value (codegen_eval()). */
struct codegen_const {
	const struct dw_type *type; /* borrowed, like the plan's types */
	uint64_t value;             /* an integer reduced to its type and extended by
				     * its signedness; a float's IEEE bits */
};

/* Evaluate the @n expressions @e over @plan's variables the way a probe
 * would, where that needs nothing from the traced program at run time
 * (literals, variables whose location is a constant): out[i].type is NULL
 * for an expression only known at run time.  Returns 0, or -WR_ESEMANTIC
 * with @diag set at the first expression in error (a type error, a
 * division by a constant zero...).  It is the code generator's own
 * folding, which lets tests hold its C semantics to a C compiler. */
int codegen_eval(const struct probe_plan *plan, const struct ast_expr *const *e, size_t n,
		 struct diag *diag, struct codegen_const *out);

/* The methods a probe reads on a value of type @t (a C++ library string,
 * container, optional or smart pointer; Rust's containers, a reference
 * to one, and Option): calls @fn with each name, as "size()".  For the
 * shell's completion and `info scope`; cg_library_method() takes each. */
void codegen_methods(const struct dw_type *t, void (*fn)(const char *name, void *ctx), void *ctx);

/* Start LLVM (options, BPF target, the template for @opt parsed) on a
 * thread of its own, so it overlaps what comes before the first compile;
 * the codegen_* calls wait for it.  Optional: without it they do the same
 * work themselves.  LLVM is the process's, not a session's (codegen.c
 * says why): the one state of codegen/ its callers do not own. */
void codegen_prepare(const struct codegen_options *opt);
/* Release LLVM's global state at exit (for leak checkers). */
void codegen_shutdown(void);

/* ---- outer frames' copies (wire.h: struct wr_outer_recipe) ---- */

struct dw_type;
struct wr_walk_op;

/* Whether gdb's bt shows memory outside a variable of @t (a string, a
 * smart pointer, a struct holding strings), or with @referent what a
 * reference to a @t refers to (a scalar, one of the library's values):
 * what a probe copies of frame 0's variables at the hit, and a recipe of
 * an outer frame's. */
bool codegen_bt_copies(const struct dw_type *t, bool referent);

/* Append to @ops (*@n of WR_WALK_MAX_OPS in use) the walk program a bt
 * runs at a value of @t (what a reference's referent of @t needs: @t
 * is the referent's type): for a container, its head alone (bt elides its
 * elements).  Returns the index of its first op, or -1 when it does not
 * fit (the ops past *@n are then undefined). */
int codegen_bt_walk(const struct dw_type *t, unsigned print_elements, struct wr_walk_op *ops, unsigned *n);
/* Whether gdb's bt full shows a local of @t whole, as print shows it,
 * with more than a bt shows: a container, a struct, union or array that
 * holds the library's values (not a string alone: a bt shows it whole). */
bool codegen_bt_shows_whole(const struct dw_type *t);
/* The same for a local of @t that gdb's bt full shows whole, as print
 * shows it (a container's elements too, at most @print_elements): the
 * walk program print runs; -1 when @t holds nothing to walk or it does
 * not fit. */
int codegen_bt_walk_whole(const struct dw_type *t, unsigned print_elements, struct wr_walk_op *ops, unsigned *n);

#endif
