/* libprobes.c - probes and the libraries a process loads after them.
 *
 * A probe on a function is placed, as a debugger places a breakpoint, in
 * every library of the process that defines the function, including the
 * ones loaded later: when the mappings show new modules, each function
 * probe gains sites in those of them that define its function.  A probe
 * with no site yet (--pending) is placed that way too.
 *
 * Better than noticing a library after it is mapped is finding it before:
 * a uprobe belongs to a file, so a probe placed on the file of a library
 * the process has not loaded yet fires from the very first call once it
 * does.  When no mapped module defines the function, the directories the
 * process loads its own libraries from are searched for one that does
 * (tracer/target_libs.c).
 */
#include "dwarf/module.h"
#include "tracer/locate.h"
#include "tracer/session_priv.h"
#include "tracer/target.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Which libraries, not loaded yet, the probe went to. */
static void say_unloaded(struct session *s, struct probe *p, const struct located_set *found)
{
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < found->n; i++) {
		const struct tmodule *m = found->v[i].mod;
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = found->v[j].mod == m;
		if (dup)
			continue;
		if (n++ < 4)
			strbuf_addf(&names, "%s%s", n > 1 ? ", " : "", m->path);
	}
	if (n > 4)
		strbuf_addf(&names, " and %zu more", n - 4);
	wr_warn("probe %u: %s is in %s, which process %d has not loaded yet; the probe fires from "
		"the first call once it does", p->id, p->ast->target.function, names.buf,
		(int)target_pid(s->target));
	strbuf_release(&names);
}

int session_locate_unloaded(struct session *s, struct probe *p, struct located_set *found,
			    struct diag *d, int err)
{
	const struct ast_target *t = &p->ast->target;
	struct diag again = { 0 };

	if (err != -WR_ENOTARGET || t->kind != AST_TARGET_FUNCTION || target_pid(s->target) <= 0)
		return err;
	if (target_find_unloaded(s->target, t->function) &&
	    locate_target(s->target, t, found, &again) == 0) {
		diag_release(&again);
		diag_release(d);
		say_unloaded(s, p, found);
		return 0;
	}
	diag_release(&again);
	if (!s->opt.pending) {
		if (d->hint && strncmp(d->hint, "did you mean", 12) != 0) {
			free(d->hint);
			d->hint = xstrdup("`info functions REGEX` lists the functions; with --pending "
					  "(`set pending on` in the shell) the probe waits for a library "
					  "that defines it");
		}
		return err;
	}
	diag_release(d);
	wr_warn("probe %u: no function '%s' in process %d or its libraries yet; it is pending and "
		"attaches when a library that defines it is loaded", p->id, t->function,
		(int)target_pid(s->target));
	return 1;
}

static bool has_site_in(const struct probe *p, const struct tmodule *m)
{
	for (size_t i = 0; i < p->n_sites; i++)
		if (p->sites[i].mod == m)
			return true;
	return false;
}

/* Sites of @p in the modules @first_mod.. that define its function and
 * that it has no site in yet, loaded and attached.  Returns how many. */
static size_t follow(struct session *s, struct probe *p, size_t first_mod)
{
	struct target *t = s->target;
	struct located_set found = { 0 };
	struct strbuf errors = STRBUF_INIT;
	struct diag d = { 0 };
	size_t first = p->n_sites, added;
	int err;

	for (size_t i = first_mod; i < target_module_count(t); i++) {
		struct tmodule *m = target_module(t, i);

		if (!m->unmapped && !has_site_in(p, m))
			locate_function_in(m, p->ast->target.function, &found);
	}
	added = session_add_sites(s, p, &found);
	if (!added)
		return 0;
	err = session_load_sites(s, p, first, &d, &errors);
	if (!err && p->enabled)
		err = session_attach_sites(s, p, first, &errors);
	if (err) {
		wr_error("probe %u (%s) in %s: %s", p->id, p->target_text,
			 dw_module_name(p->sites[first].mod->dw), d.msg ? d.msg : errors.buf);
		session_drop_sites(s, p, first);
		added = 0;
	} else {
		wr_warn("probe %u (%s): %zu more site%s in %s, loaded just now", p->id, p->target_text,
			added, added == 1 ? "" : "s", dw_module_name(p->sites[first].mod->dw));
	}
	diag_release(&d);
	strbuf_release(&errors);
	return added;
}

void session_follow_libraries(struct session *s, size_t first_mod)
{
	if (target_pid(s->target) <= 0 || s->opt.dry_run)
		return;
	for (size_t i = 0; i < s->n_probes; i++) {
		struct probe *p = s->probes[i];

		if (p->ast->target.kind != AST_TARGET_FUNCTION || !follow(s, p, first_mod))
			continue;
		if (p->pending) {
			p->pending = false;
			s->n_pending--;
		}
	}
}
