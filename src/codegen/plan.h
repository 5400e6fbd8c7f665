/* plan.h - what the IR generator is asked to build: one probe plan per
 * probe program.
 *
 * Layer rule: codegen/ reads the script AST (script/) and the wire layouts
 * (protocol/wire.h); tracer/ builds plans after resolving targets with
 * dwarf/ and proc/.  A plan borrows the AST; it must not outlive it.
 *
 * One way to the traced program's DWARF: codegen/ reaches dwarf/ only
 * through this header.  Every question about the program at the probe
 * (a name, a type, an enumerator, a function, a thread-local block,
 * frame 0's variables) is a plan_vars callback the tracer answers from
 * dwarf/.  What codegen/ gets from dwarf/ directly is the plain data
 * those answers are made of (types.h, location.h, struct dw_var), and
 * the functions over that data that look nothing up (dw_type_member(),
 * dw_loc_select(), dw_std_recognize()...): it holds no struct dw_module
 * to look anything up in, and no file of codegen/ but this one includes
 * dwarf/ (test_codegen checks), so it is tested with canned answers and
 * never sees libdw.
 */
#ifndef WRAITH_CODEGEN_PLAN_H
#define WRAITH_CODEGEN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/stdlib.h"
#include "dwarf/vars.h"
#include "protocol/wire.h"
#include "script/ast.h"

struct diag;
struct strbuf;
struct typespec;

/* How the probe's code finds the traced program's variables: the tracer
 * answers from DWARF at the probe's pc (codegen never sees libdw). */

struct plan_vars {
	/* Variable @name visible at the probe: 0, or -ENOENT. */
	int (*find)(void *ctx, const char *name, struct dw_var *out);
	/* A hint listing the names that are visible, for an unknown name. */
	void (*hint)(void *ctx, struct strbuf *out);
	/* The type a cast names (parsed): 0 with *@out, or -WR_ESEMANTIC
	 * with @d set (no such type, an ambiguous one).  May be NULL (no
	 * types then). */
	int (*find_type)(void *ctx, const struct typespec *ts, const struct dw_type **out,
			 struct diag *d);
	/* Enum constant @name visible at the probe: 0 with its type and value,
	 * or -ENOENT.  May be NULL. */
	int (*find_enumerator)(void *ctx, const char *name, const struct dw_type **type,
			       int64_t *value);
	/* Function @name of the module: 0 with its type (DW_TYPE_FUNCTION) and
	 * ELF address, or -ENOENT.  May be NULL. */
	int (*find_function)(void *ctx, const char *name, const struct dw_type **type, uint64_t *vaddr);
	/* The pointer type to @target (for &x and arrays decaying), owned by
	 * the same cache as @target. */
	const struct dw_type *(*pointer_to)(void *ctx, const struct dw_type *target);
	/* Where the block of thread-local variables of module @owner (NULL:
	 * the probe's own module) is: 0 with *@is_static and *@value (the
	 * block's distance below the thread pointer when static, else the
	 * module's id, its entry in each thread's DTV); else a negative errno
	 * with *@why and *@hint (static text).  May be NULL (no
	 * thread-local variables then). */
	int (*tls_block)(void *ctx, const struct dw_module *owner, bool *is_static, uint64_t *value,
			 const char **why, const char **hint);
	/* The variables a bt's frame 0 shows at the probe (bt args: the
	 * parameters of each function of its inline chain; with @locals,
	 * bt full, their locals too), innermost first: calls @fn with each,
	 * stops when it returns non-zero.  May be NULL. */
	void (*frame_vars)(void *ctx, bool locals, int (*fn)(const struct dw_var *v, void *arg),
			   void *arg);
	void *ctx;
};

struct probe_plan {
	uint32_t probe_id;             /* names the program; at run time a probe's id is
					  the cookie it was attached with */
	uint32_t tgid;                 /* the traced process, 0 in -t mode ($input_pid);
					  which process's hits a probe takes is in
					  its cookie (WR_COOKIE_THREAD) */
	/* The PID namespace of process tgid when it is not wraith's own (its
	 * nsfs device and inode), for $pid and $tid as the process sees them;
	 * 0 and 0 otherwise. */
	uint64_t pidns_dev, pidns_ino;
	/* Thread-local variables: the offset of thread.fsbase in the
	 * kernel's task_struct (0: unknown), asked only when a probe reads
	 * one, since finding it parses the kernel's BTF (megabytes, tens of
	 * milliseconds of every start-up otherwise); their blocks come from
	 * vars.tls_block. */
	uint32_t (*fsbase_offset)(void);
	const struct ast_probe *ast;   /* borrowed */
	uint64_t pc;                   /* module virtual address of the probe */
	uint32_t rule0;                /* CFI rule index at pc; WR_CFI_RULE_NONE if no row
					  covers it; WR_RULE_LOOKUP to search at run time */
	unsigned bt_depth;             /* 1..WR_BT_MAX_DEPTH; 0 = the default */
	const char *name;              /* borrowed: for messages, e.g. "leaf" */
	struct plan_vars vars;         /* find is NULL when the module has no DWARF */
	/* The CFA at pc, for variables addressed from the frame base:
	 * cfa_reg is a DWARF register number, or -1 when unknown. */
	int cfa_reg;
	int32_t cfa_off;
	/* The probe's code is C++'s: $pc is `void (*)(void)`, as gdb names
	 * it there (in C, `void (*)()`). */
	bool cxx;
	/* One site of several: a print argument this site cannot give (an
	 * error that another site does not have) prints a marker instead
	 * (<unreadable at this site>, <no debug info>), returned in
	 * codegen_probe()'s @args (markers), and the probe compiles. */
	bool lenient;
	/* One site of several: the site's data (the constants of its
	 * locations, its pc, the registers they are in) is read from its
	 * entry of a table (wire.h: struct wr_site_params) rather than built
	 * into the program, so sites whose programs differ only in it share
	 * one program; codegen_probe() returns the values in out->site_params. */
	bool site_table;
};

struct codegen_cache;

/* Options shared by every object of a session. */
struct codegen_options {
	enum wr_transport transport;
	bool fault_in; /* sleepable probes whose failed reads fault pages in */
	/* gdb's `print elements`: how many of a container's elements (a
	 * map's key and value are two) and a string's characters a probe
	 * copies; the renderer shows as many (render_limits).  Part of the
	 * shape key.  0: gdb's default, 200. */
	unsigned print_elements;
	/* The objects compiled so far (codegen_cache_new(), borrowed); NULL:
	 * every probe is compiled. */
	struct codegen_cache *cache;
	/* codegen_base(): WR_BASE_NO_* of the session (protocol/wire.h).
	 * With both WR_BASE_NO_COUNT and WR_BASE_NO_VALUES the lean base
	 * object, whose step program leaves those parts out. */
	unsigned base_omits;
};

#endif
