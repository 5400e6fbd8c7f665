/* locate.c - trace patterns to sites (see locate.h).
 *
 * The main module is searched first and, for functions, other modules only
 * add sites of a function of the same name they define themselves, the way
 * a debugger sets a breakpoint in every library that has the function.
 */
#include "tracer/locate.h"
#include "dwarf/module.h"
#include "dwarf/symtab.h"
#include "tracer/signature.h"
#include "tracer/target.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void located_set_release(struct located_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].site.function);
		free(s->v[i].site.file);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Move the sites of @sites (found in @mod) into @out. */
static void take_sites(struct located_set *out, struct tmodule *mod, struct dw_sites *sites)
{
	for (size_t i = 0; i < sites->n; i++) {
		out->v = xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = (struct located){ .mod = mod, .site = sites->v[i] };
	}
	free(sites->v);
	memset(sites, 0, sizeof(*sites));
}

size_t locate_function_in(struct tmodule *m, const char *function, struct located_set *out)
{
	struct dw_sites sites = { 0 };
	size_t before = out->n;

	if (!m->special && dw_module_may_define(m->dw, function))
		dw_resolve_function(m->dw, function, &sites);
	take_sites(out, m, &sites);
	return out->n - before;
}

static void suggest(struct target *tg, const char *name, struct strbuf *hint)
{
	struct tmodule *main_mod = target_main_module(tg);
	char **names = NULL;
	size_t n = 0;

	if (!main_mod)
		return;
	dw_suggest_functions(main_mod->dw, name, 3, &names, &n);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(hint, "%s'%s'", i == 0 ? "did you mean " : i + 1 == n ? " or " : ", ",
			    names[i]);
		free(names[i]);
	}
	if (n)
		strbuf_addch(hint, '?');
	free(names);
}

static const char *where_text(struct target *tg, struct strbuf *sb)
{
	struct tmodule *m = target_main_module(tg);

	if (target_scope(tg))
		strbuf_addf(sb, "%s in process %d", dw_module_name(m->dw), (int)target_pid(tg));
	else if (target_pid(tg))
		strbuf_addf(sb, "process %d (%s)", (int)target_pid(tg), m ? dw_module_name(m->dw) : "?");
	else
		strbuf_addf(sb, "%s", target_path(tg));
	return sb->buf;
}

static int locate_name(struct target *tg, const struct ast_target *t, const char *function,
		       struct located_set *out, struct diag *d);

/* Of @out's sites, keep those of overload @params (`(int, char*)`) of
 * @name: their symbol's demangled signature says which they are. */
static void keep_overload(struct located_set *out, const char *name, const char *params)
{
	struct strbuf sym = STRBUF_INIT;
	size_t kept = 0;

	for (size_t i = 0; i < out->n; i++) {
		struct located *l = &out->v[i];

		strbuf_reset(&sym);
		if (dw_module_symbol_at(l->mod->dw, l->site.vaddr, &sym) &&
		    signature_matches(sym.buf, name, params)) {
			out->v[kept++] = *l;
		} else {
			free(l->site.function);
			free(l->site.file);
		}
	}
	out->n = kept;
	strbuf_release(&sym);
}

static int locate_function(struct target *tg, const struct ast_target *t, struct located_set *out,
			   struct diag *d)
{
	long params = signature_params_at(t->function);
	char *name = params > 0 ? xstrndup(t->function, (size_t)params) : NULL;
	int err = locate_name(tg, t, name ? name : t->function, out, d);

	if (!err && name) {
		keep_overload(out, name, t->function + params);
		if (!out->n) {
			located_set_release(out);
			diag_set(d, t->loc, "`info functions REGEX` lists the functions with their parameters",
				 "no overload '%s' of '%s' in this process", t->function + params, name);
			err = -WR_ENOTARGET;
		}
	}
	free(name);
	return err;
}

static int locate_name(struct target *tg, const struct ast_target *t, const char *function,
		       struct located_set *out, struct diag *d)
{
	struct tmodule **order = xcalloc(target_module_count(tg) + 1, sizeof(*order));
	size_t n = target_modules_in_order(tg, true, order);
	struct strbuf hint = STRBUF_INIT, where = STRBUF_INIT;

	/* First the main module and the libraries whose symbol tables name
	 * the function: opening every library's debug info costs tens of
	 * milliseconds each.  Only when that finds nothing are the other
	 * libraries searched (a static or inline-only function of a library). */
	for (int pass = 0; pass < 2 && !out->n; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct dw_sites sites = { 0 };
			bool likely = i == 0 || dw_module_may_define(order[i]->dw, function);

			if (likely != (pass == 0))
				continue;
			dw_resolve_function(order[i]->dw, function, &sites);
			take_sites(out, order[i], &sites);
		}
	}
	free(order);
	if (out->n)
		return 0;
	suggest(tg, function, &hint);
	diag_set(d, t->loc, hint.len ? hint.buf : "`info functions REGEX` lists the functions",
		 "no function '%s' in %s%s", function, where_text(tg, &where),
		 target_scope(tg) ? "" : " or its libraries");
	strbuf_release(&hint);
	strbuf_release(&where);
	return -WR_ENOTARGET;
}

/* A line without code: the sites are on the next line with code, as
 * gdb's break puts them; say which. */
static void say_line_used(const struct ast_target *t, const struct located_set *found)
{
	const struct dw_site *w = &found->v[0].site;

	if (!w->line || w->line == t->line)
		return;
	wr_warn("%s:%u has no code: the probe goes on line %u%s%s, the next line with code",
		t->file, t->line, w->line, w->function ? " in " : "", w->function ? w->function : "");
}

static int locate_line(struct target *tg, const struct ast_target *t, struct located_set *out,
		       struct diag *d)
{
	struct tmodule **order = xcalloc(target_module_count(tg) + 1, sizeof(*order));
	size_t n = target_modules_in_order(tg, true, order);
	struct strbuf where = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		struct dw_sites sites = { 0 };

		/* A library whose line tables cannot name the file is
		 * skipped before its DWARF is opened. */
		if (!dw_module_may_name_file(order[i]->dw, t->file) ||
		    !dw_module_has_dwarf(order[i]->dw))
			continue;
		dw_resolve_line(order[i]->dw, t->file, t->line, &sites);
		take_sites(out, order[i], &sites);
	}
	free(order);
	if (out->n) {
		say_line_used(t, out);
		return 0;
	}
	diag_set(d, t->loc, "the file must be a source file of the program built with -g; "
		 "`info line FILE:LINE` shows what a line resolves to",
		 "no code at %s:%u in %s", t->file, t->line, where_text(tg, &where));
	strbuf_release(&where);
	return -WR_ENOTARGET;
}

static int locate_address(struct target *tg, const struct ast_target *t, struct located_set *out,
			  struct diag *d)
{
	bool ambiguous = false;
	struct tmodule *m = target_find_module(tg, t->module, &ambiguous);
	struct dw_sites sites = { 0 };

	if (!m) {
		diag_set(d, t->loc, "`info modules` lists the modules of the target",
			 ambiguous ? "module name '%s' matches more than one module"
				   : "no module '%s' is mapped by the target",
			 t->module ? t->module : "(main)");
		return -WR_ENOTARGET;
	}
	if (target_scope(tg) && m != target_scope(tg)) {
		diag_set(d, t->loc, "drop -t to probe any module of the process",
			 "with -t and -p, probes go in %s only, not in %s", target_scope(tg)->path, m->path);
		return -WR_ENOTARGET;
	}
	if (dw_resolve_address(m->dw, t->address, &sites) || !sites.n) {
		diag_set(d, t->loc, "addresses are module-relative virtual addresses, as `nm` or "
			 "`objdump -d` print them",
			 "0x%llx is not code in %s", (unsigned long long)t->address, m->path);
		dw_sites_release(&sites);
		return -WR_ENOTARGET;
	}
	take_sites(out, m, &sites);
	return 0;
}

int locate_target(struct target *tg, const struct ast_target *t, struct located_set *out,
		  struct diag *d)
{
	switch (t->kind) {
	case AST_TARGET_FUNCTION:
		return locate_function(tg, t, out, d);
	case AST_TARGET_LINE:
		return locate_line(tg, t, out, d);
	case AST_TARGET_ADDRESS:
		return locate_address(tg, t, out, d);
	}
	return -WR_ENOTARGET;
}
