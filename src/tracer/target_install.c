/* target_install.c - the kernel's copy of a target: each module's unwind
 * rows and each process's mappings (runtime/runtime.h), put in once the
 * kernel side is up and kept current as processes map and unmap code.
 *
 * The order of installation matters for correctness: a module's CFI goes
 * into the kernel before any mapping that points at it, so the unwinder
 * never sees a mapping whose rows are missing.  Until a new library's
 * mapping is installed, a walk that reaches a frame in it is handed to
 * userspace (target_finish_backtrace), never guessed.  A big module whose
 * rows are still being read when the probes attach is left out the same
 * way (deferred, see target_cfi.c) until they are.
 */
#include "tracer/target_priv.h"
#include "dwarf/module.h"
#include "runtime/runtime.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Does @m's unwind table still have to go in? */
static bool to_install(const struct target *t, const struct tmodule *m)
{
	return t->want_cfi && !m->cfi->installed && !m->cfi->deferred;
}

/* Put the modules of @mods (@n, none twice) that are not in yet in at
 * once, into the arrays of maps @outer, or @t's runtime's (NULL): their
 * rows read first, and their maps made where the loader did not. */
static int install_modules(struct target *t, struct tmodule *const *mods, size_t n,
			   const int *outer)
{
	struct rt_cfi_put *v = xcalloc(n ? n : 1, sizeof(*v));
	struct tmodule **put = xcalloc(n ? n : 1, sizeof(*put));
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct tmodule *m = mods[i];

		if (!to_install(t, m))
			continue;
		target_load_module_cfi(t, m);
		if (m->cfi->fds[0] < 0 && m->cfi->fds[1] < 0)
			err = runtime_cfi_maps_new(m->cfi->rows.rows, m->cfi->rows.n, m->cfi->rules.v,
						   m->cfi->rules.n, m->cfi->fds);
		if (err)
			wr_error("storing unwind rows in the kernel: %s", wr_strerror(err));
		put[k] = m;
		v[k].slot = m->slot;
		memcpy(v[k++].fds, m->cfi->fds, sizeof(v->fds));
	}
	if (!err && k)
		err = outer ? runtime_put_cfi_maps_at(outer, v, k) : runtime_put_cfi_maps(t->rt, v, k);
	for (size_t i = 0; i < k; i++) {
		put[i]->cfi->installed = !err;
		/* the kernel holds its own references; made again on failure */
		runtime_cfi_maps_close(put[i]->cfi->fds);
	}
	free(put);
	free(v);
	return err;
}

static int install_module(struct target *t, struct tmodule *m)
{
	return install_modules(t, &m, 1, NULL);
}

/* The modules of @p's mappings whose tables must go in, each once. */
static size_t process_modules(struct target *t, struct tprocess *p, struct tmodule ***out)
{
	struct tmodule **v = xcalloc(p->n_maps ? p->n_maps : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < p->n_maps; i++) {
		struct tmodule *m = p->maps[i].mod;
		size_t j = 0;

		while (j < n && v[j] != m)
			j++;
		if (j == n && to_install(t, m))
			v[n++] = m;
	}
	*out = v;
	return n;
}

/* A deferred module's mappings are left out: the kernel hands a walk
 * that reaches one over instead of unwinding it. */
int target_install_process(struct target *t, struct tprocess *p)
{
	struct wr_proc_maps *pm;
	struct tmodule **mods;
	size_t n = process_modules(t, p, &mods);
	int err = install_modules(t, mods, n, NULL);

	free(mods);
	if (err)
		return err;
	pm = xcalloc(1, sizeof(*pm));
	for (size_t i = 0; i < p->n_maps && pm->count < WR_MAX_MAPPINGS; i++) {
		const struct tmapping *tm = &p->maps[i];

		if (tm->mod->cfi->deferred)
			continue;
		pm->m[pm->count++] = (struct wr_mapping){
			.start = tm->start, .end = tm->end, .bias = tm->bias, .cookie = tm->mod->cookie,
			.slot = tm->mod->slot, .row_count = tm->mod->cfi->installed ? (__u32)tm->mod->cfi->rows.n : 0,
		};
	}
	/* A new generation tells the unwinder's frame cache that what it
	 * learnt about this process's addresses may be stale. */
	pm->generation = ++t->generation;
	err = runtime_put_proc_maps(t->rt, (uint32_t)p->pid, pm);
	if (!err)
		p->installed = true;
	free(pm);
	return err;
}

/* -t PATH: the kernel follows the target's processes from now on
 * (runtime_watch_members()), is told the ones known, and /proc is
 * searched again for those started since the first search, which it did
 * not see start. */
static int watch_members(struct target *t)
{
	struct tmodule *m = t->mods[0];
	int err;

	if (!target_has_members(t))
		return 0;
	err = runtime_watch_members(t->rt, m->dev, m->ino, dw_module_is_program(m->dw));
	if (err)
		return err;
	target_sync_members(t);
	target_scan_processes(t);
	return 0;
}

int target_install(struct target *t, struct runtime *rt)
{
	double t0;
	int err = 0;

	t->rt = rt;
	t->cfi_put = t->want_cfi;
	if (!t->want_cfi || !target_cfi_defer(t))
		target_load_cfi_wait(t);
	t0 = now_seconds();
	err = install_modules(t, t->mods, t->n_mods, NULL);
	if (t->want_cfi)
		wr_debug("unwind tables: in the kernel in %.1f ms", (now_seconds() - t0) * 1e3);
	if (!err)
		err = watch_members(t);
	for (size_t i = 0; i < t->n_procs && !err; i++)
		err = target_install_process(t, t->procs[i]);
	t->cfi_installed_at = now_seconds();
	return err;
}

int target_install_early(struct target *t, const int outer[2])
{
	struct tmodule **v;
	size_t n = 0;
	double t0 = now_seconds();
	int err;

	if (!t->want_cfi)
		return 0;
	v = xcalloc(t->n_mods ? t->n_mods : 1, sizeof(*v));
	for (size_t i = 0; i < t->n_mods; i++)
		if (!t->mods[i]->cfi->load.last)
			v[n++] = t->mods[i];
	err = install_modules(t, v, n, outer);
	free(v);
	wr_debug("unwind tables: %zu modules in the kernel in %.1f ms, while it loads the base object%s",
		 n, (now_seconds() - t0) * 1e3, err ? " (failed: put in again later)" : "");
	return err;
}

/* Put deferred module @m in (waiting for its rows if need be); its
 * processes' mappings are the caller's to install. */
static void put_deferred(struct target *t, struct tmodule *m, const char *why)
{
	int err;

	m->cfi->deferred = false;
	t->cfi_n_deferred--;
	err = install_module(t, m);
	if (err) {
		/* Left out for good: its walks go on being finished in userspace. */
		m->cfi->deferred = true;
		wr_warn("unwind tables of %s: could not put them in the kernel (%s); walks through it "
			"are finished by wraith instead", m->path, wr_strerror(err));
		return;
	}
	wr_debug("unwind tables: %s (%zu rows) in the kernel %.1f ms after the others%s; walks "
		 "through deferred modules finished in userspace so far: %zu", dw_module_name(m->dw),
		 m->cfi->rows.n, (now_seconds() - t->cfi_installed_at) * 1e3, why, t->stats.deferred_walks);
}

/* Install again the mappings of every process that maps a module just
 * put in (@put, by slot). */
static void reinstall_processes(struct target *t, bool *put)
{
	for (size_t i = 0; i < t->n_procs; i++) {
		struct tprocess *p = t->procs[i];
		bool mine = false;

		for (size_t j = 0; j < p->n_maps && !mine; j++)
			mine = put[p->maps[j].mod->slot];
		if (mine)
			target_install_process(t, p);
	}
}

/* Put in the deferred modules (@only, or all; @ready_only: those whose
 * rows are read, else waiting for them) and their processes' mappings;
 * the loader is joined once none is left.  Returns how many. */
static size_t put_deferred_modules(struct target *t, bool ready_only, struct tmodule *only,
				   const char *why)
{
	bool *put;
	size_t n = 0;

	if (!t->cfi_n_deferred || !t->rt)
		return 0;
	put = xcalloc(t->n_mods, sizeof(*put));
	for (size_t i = 0; i < t->n_mods; i++) {
		struct tmodule *m = t->mods[i];

		if (!m->cfi->deferred || m->cfi->installed || (only && m != only) ||
		    (ready_only && !target_cfi_ready(t, m)))
			continue;
		put_deferred(t, m, why);
		put[m->slot] = true;
		n++;
	}
	if (n)
		reinstall_processes(t, put);
	free(put);
	if (!t->cfi_n_deferred)
		target_cfi_join_late(t);
	return n;
}

size_t target_install_deferred(struct target *t)
{
	return put_deferred_modules(t, true, NULL, "");
}

void target_pin_module(struct target *t, struct tmodule *m)
{
	m->cfi->pinned = true;
	if (m->cfi->deferred)
		put_deferred_modules(t, false, m, " (a probe was placed in it)");
}

void target_defer_off(struct target *t)
{
	t->cfi_defer_off = true;
	put_deferred_modules(t, false, NULL, " (a `count bt` needs every module in the kernel)");
}
