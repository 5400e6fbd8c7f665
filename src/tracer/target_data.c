/* target_data.c - the program's data across the modules of a target: a
 * type one module only declares completed from another, a global defined
 * in another module bound and relocated, the block of thread-local
 * variables, the symbol a data address lies in and constant bytes read
 * from a module's file.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "dwarf/symtab.h"
#include "dwarf/symbolize.h"
#include "dwarf/vars.h"
#include "proc/linkmap.h"
#include "proc/stable.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A type a module only declares (`struct lua_State *` in a program that
 * links the library defining it), completed from the first other module
 * that defines it, the main module first, the way gdb looks a type up in
 * every objfile. */
const struct dw_type *target_resolve_type(void *ctx, struct dw_module *asking, const char *spelling)
{
	struct target *t = ctx;
	struct tmodule *main_mod = target_main_module(t);
	const struct dw_type *found = NULL;

	if (main_mod && main_mod->dw != asking)
		found = dw_type_find_complete(main_mod->dw, spelling);
	for (size_t i = 0; i < t->n_mods && !found; i++)
		if (t->mods[i] != main_mod && t->mods[i]->dw != asking)
			found = dw_type_find_complete(t->mods[i]->dw, spelling);
	return found;
}

/* The load bias of @m in the traced process: one process only, since
 * libraries load at different addresses in each. */
static bool module_bias(struct target *t, struct tmodule *m, uint64_t *bias)
{
	if (t->path || t->n_procs != 1)
		return false;
	for (size_t i = 0; i < t->procs[0]->n_maps; i++) {
		if (t->procs[0]->maps[i].mod == m) {
			*bias = t->procs[0]->maps[i].bias;
			return true;
		}
	}
	return false;
}

bool target_caller_modules(void *ctx, struct dw_module *asking, size_t i, struct dw_module **out,
			   int64_t *delta)
{
	struct target *t = ctx;
	struct tmodule *at = NULL;
	uint64_t bias_at, bias;
	size_t k = 0;

	for (size_t j = 0; j < t->n_mods && !at; j++)
		if (t->mods[j]->dw == asking)
			at = t->mods[j];
	if (!at || !module_bias(t, at, &bias_at))
		return false;
	for (size_t j = 0; j < t->n_mods; j++) {
		if (t->mods[j] == at || !module_bias(t, t->mods[j], &bias) || k++ != i)
			continue;
		*out = t->mods[j]->dw;
		*delta = (int64_t)(bias - bias_at);
		return true;
	}
	return false;
}

/* @v, a global of module @def, made readable from a probe in module @at:
 * its address relative to @at's load bias, which the probe knows. */
static void relocate_global(struct target *t, struct tmodule *def, struct tmodule *at, struct dw_var *v)
{
	uint64_t bias_def, bias_at;

	if (v->loc.kind == DW_LOC_MEM_EXPR || v->loc.kind == DW_LOC_VALUE_EXPR)
		v->loc.tls_module = def->dw; /* its thread-local block, if it names one */
	if (v->loc.kind != DW_LOC_MEM_ADDR)
		return; /* a constant needs no address */
	if (!module_bias(t, def, &bias_def) || !module_bias(t, at, &bias_at)) {
		v->loc.kind = DW_LOC_UNSUPPORTED;
		v->loc.why = "it is a global of another module, which wraith reads only when tracing one "
			     "process (-p PID)";
		return;
	}
	v->loc.offset = (int64_t)(bias_def + (uint64_t)v->loc.offset - bias_at);
}

void target_describe_site(struct target *t, struct tmodule *m, uint64_t vaddr, struct strbuf *out)
{
	struct dw_sym sym;

	(void)t;
	strbuf_addf(out, "%s+0x%llx", dw_module_name(m->dw), (unsigned long long)vaddr);
	if (dw_symbolize(m->dw, vaddr, &sym) != 0 || !sym.n || !sym.frames[0].function)
		return;
	strbuf_addf(out, " in %s", sym.frames[0].function);
	if (sym.n > 1 && sym.frames[sym.n - 1].function)
		strbuf_addf(out, ", inlined into %s", sym.frames[sym.n - 1].function);
}

/* The module whose copy of global @v (found in @def) the program uses:
 * the first module in the dynamic linker's lookup order (the executable,
 * then the libraries) whose dynamic symbols define it.  An executable that
 * uses a library's variable holds it by a copy relocation, and the
 * library's own copy is stale from then on.  A global no module exports
 * (static, hidden, protected) is its definition's own; so is one whose
 * copy cannot be reached without a process (tracing by path). */
static struct tmodule *bind_global(struct target *t, struct tmodule *def, struct tmodule *at,
				   struct dw_var *v)
{
	struct tmodule *main_mod = target_main_module(t);
	uint64_t addr, bias;

	if (v->scope != DW_VAR_GLOBAL || !v->external || v->loc.kind != DW_LOC_MEM_ADDR || !v->name ||
	    !dw_module_dynamic_object(def->dw, v->name, &addr))
		return def;
	for (size_t i = 0; i <= t->n_mods; i++) {
		struct tmodule *x = i == 0 ? main_mod : t->mods[i - 1];

		if (!x || (i > 0 && x == main_mod))
			continue;
		if (x == def)
			return def;
		if (!dw_module_dynamic_object(x->dw, v->name, &addr))
			continue;
		if (x != at && (!module_bias(t, x, &bias) || !module_bias(t, at, &bias)))
			return def;
		v->loc.offset = (int64_t)addr;
		return x;
	}
	return def;
}

/* ---- thread-local variables ---- */

/* The program's own block is where glibc always puts it (computed from its
 * PT_TLS alone, so -t without -p knows it too).  A library's depends on
 * the order the dynamic linker loaded modules in, which only the process
 * can say: its link_map gives the module id and, for a module loaded at
 * start, the static offset.  A static block is taken at the thread
 * pointer less that offset: exact for every thread from its creation (the
 * block is allocated with the thread and never moves), and no memory is
 * read to find it.  Otherwise (dlopen'ed) the block exists only once the
 * thread first used it, and only the thread's DTV says where. */
int target_tls_block(struct target *t, const struct dw_module *dw, struct tmodule *probe_mod,
		     struct target_tls *out, const char **why)
{
	struct tmodule *m = dw ? target_module_of(t, dw) : probe_mod, *main_mod = target_main_module(t);
	struct proc_tls_query q = { 0 };
	struct proc_tls_module lm;
	struct dw_tls_segment seg;
	uint64_t main_bias;
	int err;

	if (!m || dw_module_tls(m->dw, &seg)) {
		*why = "its module has no thread-local storage segment (PT_TLS)";
		return -ENOENT;
	}
	if (dw_module_is_program(m->dw)) {
		out->is_static = true;
		return dw_module_static_tls_offset(m->dw, &out->value);
	}
	if (t->pid <= 0 || !main_mod || !module_bias(t, m, &q.l_addr) ||
	    !module_bias(t, main_mod, &main_bias) || !dw_module_dynamic_vaddr(main_mod->dw)) {
		*why = "a library's thread-local variables are found through the dynamic linker "
		       "of one process";
		return -ESRCH;
	}
	q.dynamic = main_bias + dw_module_dynamic_vaddr(main_mod->dw);
	q.filesz = seg.filesz;
	q.memsz = seg.memsz;
	q.align = seg.align;
	err = proc_tls_module(t->pid, &q, &lm, why);
	if (err)
		return err;
	out->is_static = lm.offset > 0;
	out->value = out->is_static ? (uint64_t)lm.offset : lm.modid;
	return 0;
}

int target_find_var(struct target *t, struct tmodule *m, const struct dw_at *at, const char *name,
		    struct dw_var *out)
{
	struct tmodule *main_mod = target_main_module(t), *def = NULL, *bound;
	int err = dw_var_find_at(m->dw, at, name, out);

	if (err == 0)
		def = m;
	else if (err != -ENOENT)
		return err;
	/* a global declared here (an extern in a header) and defined in a
	 * library, or in the program for a probe in a library */
	if (!def && main_mod && main_mod != m && dw_var_find_global(main_mod->dw, name, out) == 0)
		def = main_mod;
	for (size_t i = 0; !def && i < t->n_mods; i++) {
		if (t->mods[i] != m && t->mods[i] != main_mod &&
		    dw_var_find_global(t->mods[i]->dw, name, out) == 0)
			def = t->mods[i];
	}
	if (!def)
		return -ENOENT;
	bound = bind_global(t, def, m, out);
	if (bound != m)
		relocate_global(t, bound, m, out);
	return 0;
}


/* A module's segments all move by its load bias, so the module an address
 * is in is the one whose biased range holds it. */
void target_data_symbol(struct target *t, pid_t pid, uint64_t addr, struct strbuf *out)
{
	struct tprocess *p = target_process(t, pid);
	struct tmodule *last = NULL;
	size_t len = out->len;

	for (size_t i = 0; p && i < p->n_maps; i++) {
		const struct tmapping *mp = &p->maps[i];
		uint64_t lo, hi;

		if (mp->mod == last)
			continue;
		last = mp->mod;
		dw_module_range(mp->mod->dw, &lo, &hi);
		if (addr < lo + mp->bias || addr >= hi + mp->bias)
			continue;
		strbuf_addstr(out, " <");
		if (dw_module_symbol_at(mp->mod->dw, addr - mp->bias, out)) {
			strbuf_addch(out, '>');
		} else {
			out->len = len;
			out->buf[len] = '\0';
		}
		return;
	}
}

size_t target_read_stable(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	if (!t->stable)
		t->stable = proc_stable_cache_new();
	return proc_stable_read(t->stable, pid, addr, buf, len);
}

static long read_module_file(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len,
			     long (*read)(const struct dw_module *, uint64_t, void *, size_t))
{
	struct tprocess *p = target_process(t, pid);

	for (size_t i = 0; p && i < p->n_maps; i++) {
		const struct tmapping *mp = &p->maps[i];
		uint64_t lo, hi;

		/* the maps kept are the code's: the module's bias places the rest */
		dw_module_range(mp->mod->dw, &lo, &hi);
		if (addr >= lo + mp->bias && addr < hi + mp->bias)
			return read(mp->mod->dw, addr - mp->bias, buf, len);
	}
	return -1;
}

long target_read_const(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return read_module_file(t, pid, addr, buf, len, dw_module_read_const);
}

long target_read_vtable(struct target *t, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return read_module_file(t, pid, addr, buf, len, dw_module_read_unrelocated);
}
