/* session_sites.c - a probe's sites: its pattern resolved to sites, each
 * placed (the instruction its uprobe goes on, place.h), attached and
 * detached; sites the kernel refuses are said and left out, and sites
 * dropped when their module goes.  Compiling them is session_compile.c's.
 */
#include "tracer/session_priv.h"
#include "dwarf/module.h"
#include "runtime/prearm.h"
#include "runtime/runtime.h"
#include "runtime/uprobe_insn.h"
#include "tracer/locate.h"
#include "tracer/place.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void session_drop_sites(struct session *s, struct probe *p, size_t first)
{
	for (size_t i = first; i < p->n_sites; i++)
		if (s->rt)
			runtime_unload(s->rt, p->sites[i].rt);
	runtime_settle(s->rt);
	stacks_forget_sites(s, p, first);
	for (size_t i = first; i < p->n_sites; i++) {
		struct probe_site *site = &p->sites[i];

		if (site->wire_id < WR_MAX_PROBES && s->wire[site->wire_id].probe == p)
			s->wire[site->wire_id].probe = NULL;
		probe_site_release(site);
	}
	if (first < p->n_sites)
		p->n_sites = first;
}

/* "mod+0x1153 (inline padded at refused.c:12)" */
static void describe_site(struct strbuf *sb, const struct located *l)
{
	strbuf_addf(sb, "%s+0x%llx", dw_module_name(l->mod->dw), (unsigned long long)l->site.vaddr);
	if (l->site.function)
		strbuf_addf(sb, " (%s%s", l->site.inlined ? "inline " : "", l->site.function);
	if (l->site.function && l->site.file)
		strbuf_addf(sb, " at %s:%u", l->site.file, l->site.line);
	if (l->site.function)
		strbuf_addch(sb, ')');
}

/* Where the uprobe of @l goes (place.h), into @site; false when nowhere,
 * after a warning. */
static bool place_site(struct probe *p, struct located *l, struct probe_site *site)
{
	struct site_place place;
	struct strbuf where = STRBUF_INIT;

	site_place(l->mod->dw, &l->site, p->ast->target.kind != AST_TARGET_FUNCTION, &place);
	site->site_vaddr = l->site.vaddr;
	if (!place.note)
		return true;
	describe_site(&where, l);
	if (place.skip) {
		wr_warn("probe %u (%s): site %s is skipped: %s.  Trace a later line of it instead "
			"(trace FILE:LINE)", p->id, p->target_text, where.buf, place.note);
		strbuf_addf(&where, ": %s", place.note);
		probe_note_skipped(p, strbuf_detach(&where));
		free(place.note);
		return false;
	}
	wr_debug("probe %u (%s): site %s: %s", p->id, p->target_text, where.buf, place.note);
	strbuf_release(&where);
	site->place_note = place.note;
	l->site.vaddr = place.vaddr;
	if (place.file) {
		free(l->site.file);
		l->site.file = place.file;
		l->site.line = place.line;
		l->site.col = place.col;
	}
	return true;
}

size_t session_add_sites(struct session *s, struct probe *p, struct located_set *found)
{
	size_t added = 0;

	p->sites = xrealloc(p->sites, (p->n_sites + found->n + 1) * sizeof(*p->sites));
	for (size_t i = 0; i < found->n; i++) {
		struct probe_site *site = &p->sites[p->n_sites];
		struct located *l = &found->v[i];

		memset(site, 0, sizeof(*site));
		if (!place_site(p, l, site) ||
		    dw_module_vaddr_to_offset(l->mod->dw, l->site.vaddr, &site->file_offset)) {
			free(l->site.function);
			free(l->site.file);
			free(site->place_note);
			continue;
		}
		site->mod = l->mod;
		site->where = l->site;
		target_pin_module(s->target, l->mod);
		site->rule0 = target_rule_at(l->mod, l->site.vaddr);
		p->n_sites++;
		added++;
	}
	free(found->v);
	memset(found, 0, sizeof(*found));
	return added;
}

static int resolve_probe(struct session *s, struct probe *p, struct diag *d)
{
	struct located_set found = { 0 };
	double t0 = now_seconds();
	int err = locate_target(s->target, &p->ast->target, &found, d);

	err = session_locate_unloaded(s, p, &found, d, err);
	if (err == 1) {
		p->pending = true;
		s->n_pending++;
		return 0;
	}
	wr_debug("probe %u: '%s' resolved to %zu site%s in %.1f ms", p->id, p->target_text, found.n,
		 found.n == 1 ? "" : "s", (now_seconds() - t0) * 1e3);
	if (err)
		return err;
	if (!session_add_sites(s, p, &found)) {
		if (p->n_skipped)
			diag_set(d, p->ast->target.loc, NULL,
				 "no site of '%s' can take a uprobe (the warning above says why)",
				 p->target_text);
		else
			diag_set(d, p->ast->target.loc, NULL, "'%s' resolves to no loadable code",
				 p->target_text);
		return -WR_ENOTARGET;
	}
	return 0;
}

int session_attach_site(struct session *s, struct probe_site *site)
{
	pid_t pid = target_pid(s->target) > 0 ? target_pid(s->target) : -1;

	if (site->dead)
		return 0;
	return runtime_attach(s->rt, site->rt, pid, site->mod->open_path, site->file_offset);
}

int session_load_probe(struct session *s, struct probe *p, struct diag *d, struct strbuf *errors)
{
	int err = resolve_probe(s, p, d);

	/* The sites' uprobes register while the probes compile (prearm.h). */
	for (size_t i = 0; !err && i < p->n_sites && p->enabled && !s->opt.dry_run; i++)
		uprobe_prearm(target_pid(s->target) > 0 ? target_pid(s->target) : -1, p->sites[i].mod->open_path,
			      p->sites[i].file_offset);
	return err ? err : session_load_sites(s, p, 0, d, errors);
}

/* The kernel refused the uprobe of @site (@err, which uprobe_insn_error()
 * explains): say so; the site stays loaded, unattached. */
static void refused_site(struct probe *p, struct probe_site *site, int err)
{
	struct strbuf insn = STRBUF_INIT, where = STRBUF_INIT;

	site_insn_bytes(site->mod->dw, site->where.vaddr, &insn);
	strbuf_addf(&where, "%s+0x%llx", dw_module_name(site->mod->dw),
		    (unsigned long long)site->where.vaddr);
	if (site->where.function)
		strbuf_addf(&where, " (%s%s)", site->where.inlined ? "inline " : "",
			    site->where.function);
	wr_warn("probe %u (%s): site %s is skipped: %s (%s).  Trace a later line of it instead "
		"(trace FILE:LINE)", p->id, p->target_text, where.buf, uprobe_insn_error(err),
		insn.len ? insn.buf : "unreadable");
	free(site->place_note);
	strbuf_reset(&where);
	strbuf_addf(&where, "not attached: %s (%s)", uprobe_insn_error(err), insn.buf);
	site->place_note = strbuf_detach(&where);
	site->refused = true;
	strbuf_release(&insn);
}

int session_attach_sites(struct session *s, struct probe *p, size_t first, struct strbuf *errors)
{
	size_t attached = 0, refused = 0;
	int err = 0;

	if (!s->opt.dry_run && p->enabled)
		session_precompute_recipes(s, p, first);
	for (size_t i = first; i < p->n_sites && !err && !s->opt.dry_run && p->enabled; i++) {
		err = session_attach_site(s, &p->sites[i]);
		if (err && uprobe_insn_error(err)) {
			refused_site(p, &p->sites[i], err);
			refused++;
			err = 0;
		} else if (!err && !p->sites[i].dead) {
			attached++;
		}
	}
	if (err)
		strbuf_addf(errors, "wraith: probe %u (%s) could not be attached: %s\n", p->id,
			    p->target_text, wr_strerror(err));
	else if (refused && !attached)
		strbuf_addf(errors, "wraith: probe %u (%s) could not be attached: the kernel's uprobes "
			    "took none of its sites (the warning%s above say%s why)\n", p->id,
			    p->target_text, refused == 1 ? "" : "s", refused == 1 ? "s" : "");
	return err ? err : refused && !attached ? -WR_EATTACH : 0;
}
