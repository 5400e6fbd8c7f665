/* tailcall.h - functions that left the stack by tail calls, recovered
 * from DWARF call-site information.
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 *
 * When f calls g and g ends with `jmp h`, the stack holds f's return
 * address but no frame of g: an unwinder sees h called from f.  The
 * compiler's DW_TAG_call_site entries say which function each call site
 * calls and which calls are tail calls, so between a caller and its callee
 * the missing functions can be found again, as gdb does: when the call
 * site in the caller names a function other than the callee, search the
 * tail calls leading from that function to the callee.  Only a chain that
 * is certain is reported (where several chains fit, their common start and
 * end).  A chain may cross modules (`return lib_f(x);` in a program jumps
 * to a library through the PLT): a tail call to a function declared but
 * not defined in its module is followed where the caller of this header
 * says the dynamic linker binds it (struct dw_tailcall_linker).
 */
#ifndef WRAITH_DWARF_TAILCALL_H
#define WRAITH_DWARF_TAILCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

#define DW_TAILCALL_MAX 8

struct dw_tailcall {
	struct dw_module *m; /* the module of the function (borrowed) */
	uint64_t entry;    /* entry address of the function that tail-called */
	uint64_t call_pc;  /* the jump that made the tail call (for file:line) */
};

/* Where a call of a function no module-local definition has goes: the
 * module and entry address the dynamic linker binds @name (a linkage
 * name) to; false when none is known.  *@m is borrowed. */
struct dw_tailcall_linker {
	bool (*bind)(void *ctx, const char *name, struct dw_module **m, uint64_t *entry);
	void *ctx;
};

/* The function called by the call instruction that returns to @ret_pc in
 * @m: *name is borrowed from libdw; *entry is its entry address when @m
 * defines it, else 0.  Returns 0, or -ENOENT when no call-site information
 * covers @ret_pc (or the call is indirect). */
int dw_call_target(struct dw_module *m, uint64_t ret_pc, const char **name, uint64_t *entry);

/* Entry address of the function named @name (plain or linkage name)
 * defined in @m, or 0. */
uint64_t dw_function_entry(struct dw_module *m, const char *name);

/* The tail calls that lead from the function entered at @from in @from_m
 * to the one entered at @to in @to_m, in call order (starting with @from,
 * @to not included), crossing modules through @linker (may be NULL: one
 * module only).  Returns how many were stored in @out (at most @max); 0
 * when there is no certain chain. */
size_t dw_tailcall_chain(struct dw_module *from_m, uint64_t from, struct dw_module *to_m, uint64_t to,
			 const struct dw_tailcall_linker *linker, struct dw_tailcall *out, size_t max);

/* Whether gdb 13 would resolve the entry values (DW_OP_entry_value, a
 * caller's DW_AT_call_value) of the function entered at @entry of @m:
 * only when the tail calls it can reach are all ones gdb can follow and
 * none leads back to it (see tailcall.c).  The answer is cached. */
bool dw_tailcall_entry_values(struct dw_module *m, uint64_t entry);

/* Whether the first instruction of the function entered at @entry of @m
 * is reached only by calls (and jumps from other functions, tail calls):
 * no jump of its own code may land there - no loop has its head there,
 * no indirect jump is in it - so there a register holds what the call
 * (or jump) that entered it passed.  False when its code cannot be read.
 * The answer is cached. */
bool dw_entry_only_called(struct dw_module *m, uint64_t entry);

/* Whether the code of @m from the function's entry @entry up to @pc (not
 * included) runs straight from the entry, every instruction one whose
 * register writes are known (x86insn_gpr_writes()), and no jump of the
 * function's own may land anywhere from the entry to @pc (no loop's
 * head, no indirect jump in it): then at @pc the general registers but
 * those in *@written (bit n: DWARF register n) still hold what the call
 * (or jump) that entered the function left in them.  At the entry
 * itself, *@written is 0.  At most 128 bytes of code are followed.  The
 * answer is cached. */
bool dw_entry_straight(struct dw_module *m, uint64_t entry, uint64_t pc, uint32_t *written);

#endif
