/* plan.h - what the IR generator is asked to build: one probe plan per
 * probe program.
 *
 * Layer rule: codegen/ reads the script AST (script/) and the wire layouts
 * (protocol/wire.h); tracer/ builds plans after resolving targets with
 * dwarf/ and proc/.  A plan borrows the AST; it must not outlive it.
 */
#ifndef WRAITH_CODEGEN_PLAN_H
#define WRAITH_CODEGEN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "script/ast.h"

enum wr_transport {
	WR_TRANSPORT_RINGBUF = 0,
	WR_TRANSPORT_PERF = 1,
};

/* A DWARF variable the probe reads, resolved by the tracer.  codegen asks
 * for variables by name through plan->resolve_var. */
struct plan_var;

struct probe_plan {
	uint32_t probe_id;
	uint32_t tgid;                 /* 0: any process (-t mode) */
	const struct ast_probe *ast;   /* borrowed */
	uint64_t pc;                   /* module virtual address of the probe */
	uint32_t rule0;                /* CFI rule index at pc; WR_CFI_RULE_NONE if no row
					  covers it; 0xfffffffe to search at run time */
	unsigned bt_depth;             /* 1..128 */
	const char *name;              /* borrowed: for messages, e.g. "leaf" */
};

/* Options shared by every object of a session. */
struct codegen_options {
	enum wr_transport transport;
};

#endif
