/* scope.c - the names a probe's body sees where it stands (see scope.h).
 *
 * An expression being completed is read back from its end: a path of
 * names joined by `.`, `->` or `::` with `[...]` indexes, so that
 * `print "{}", cfg.limi` completes `limi` among the members of `cfg`'s
 * type.  The path's type is followed the lenient way a user means it:
 * through pointers and references whichever of `.` or `->` was typed,
 * through the library's smart pointers after `->`, to the elements
 * after `[...]`.
 */
#include "tracer/scope.h"
#include "codegen/codegen.h"
#include "dwarf/module.h"
#include "dwarf/stdlib.h"
#include "dwarf/vars.h"
#include "arch/x86_64.h"
#include "script/parser.h"
#include "script/pattern.h"
#include "tracer/locate.h"
#include "tracer/session_priv.h"
#include "tracer/target.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define INFO_SITES 4 /* sites `info scope` lists before "and N more" */

/* The sites of @pattern in @s.  Returns 0 with at least one, else an
 * error with the reason in @why. */
static int locate(struct session *s, const char *pattern, struct located_set *out, struct strbuf *why)
{
	struct ast_target t = { 0 };
	struct diag d = { 0 };
	int err = script_parse_target(pattern, (struct src_loc){ 1, 1, 1 }, &t, &d);

	if (!err)
		err = locate_target(s->target, &t, out, &d);
	if (err && why)
		strbuf_addf(why, "'%s': %s\n", pattern, d.msg ? d.msg : "not a probe pattern");
	diag_release(&d);
	ast_target_release(&t);
	return err ? err : (out->n ? 0 : -WR_ENOTARGET);
}

static struct dw_at site_at(const struct located *l)
{
	return (struct dw_at){ .pc = l->site.vaddr, .scope = l->site.scope, .has_view = l->site.has_view,
			       .view = l->site.view };
}

/* ---- types along a path ---- */

/* @t without pointers, references and, after `->`, the library's
 * smart pointers in front of what they point to. */
static const struct dw_type *pointee(const struct dw_type *t, bool arrow)
{
	struct dw_std s;

	for (int i = 0; t && i < 8; i++) {
		if (t->kind == DW_TYPE_POINTER && t->target && t->target->kind != DW_TYPE_VOID)
			t = t->target;
		else if (arrow && t->kind == DW_TYPE_STRUCT && dw_std_recognize(t, &s) && s.elem &&
			 (s.kind == DW_STD_UNIQUE_PTR || s.kind == DW_STD_SHARED_PTR || s.kind == DW_STD_RC))
			t = s.elem;
		else
			break;
	}
	return t;
}

/* The type of an element of @t (`t[i]`), or NULL. */
static const struct dw_type *element(const struct dw_type *t)
{
	struct dw_std s;

	t = pointee(t, false);
	if (t && t->kind == DW_TYPE_ARRAY)
		return t->target;
	if (t && t->kind == DW_TYPE_STRUCT && dw_std_recognize(t, &s) && s.elem &&
	    (s.kind == DW_STD_VECTOR || s.kind == DW_STD_DEQUE || s.kind == DW_STD_RING))
		return s.elem;
	return NULL;
}

/* The member @name of @t's aggregate, through pointers, or NULL. */
static const struct dw_type *member_type(const struct dw_type *t, const char *name, bool arrow)
{
	const struct dw_member *m;
	uint64_t off;

	t = pointee(t, arrow);
	m = t ? dw_type_member(t, name, &off) : NULL;
	return m ? m->type : NULL;
}

/* A variable @name at @at: the function's own, else a member of the
 * class of the method the probe stands in (`this`), as gdb finds it. */
static const struct dw_type *name_type(struct dw_module *m, const struct dw_at *at, const char *name)
{
	struct dw_var v;

	if (!dw_var_find_at(m, at, name, &v) || !dw_var_find_outer(m, at, name, &v))
		return v.type;
	if (!dw_var_find_at(m, at, "this", &v))
		return member_type(v.type, name, true);
	return NULL;
}

/* The type of path @p (@n bytes: `a.b->c[2]`) at @at, or NULL. */
static const struct dw_type *path_type(struct dw_module *m, const struct dw_at *at, const char *p, size_t n)
{
	const char *end = p + n;
	const struct dw_type *t = NULL;
	bool first = true, arrow = false;
	char name[128];

	while (p < end) {
		size_t len = 0;

		if (*p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));

			if (!close || first || !(t = element(t)))
				return NULL;
			p = close + 1;
			continue;
		}
		if (*p == '.' || (*p == '-' && p + 1 < end && p[1] == '>')) {
			arrow = *p == '-';
			p += arrow ? 2 : 1;
			continue;
		}
		while (p + len < end && (isalnum((unsigned char)p[len]) || p[len] == '_' || p[len] == '$' ||
					 (p[len] == ':' && !first)))
			len++;
		if (!len || len >= sizeof(name))
			return NULL;
		memcpy(name, p, len);
		name[len] = '\0';
		t = first ? name_type(m, at, name) : member_type(t, name, arrow);
		if (!t)
			return NULL;
		first = false;
		p += len;
	}
	return t;
}

/* ---- what is offered ---- */

struct offer {
	void (*fn)(const char *word, void *ctx);
	void *ctx;
	struct strbuf word; /* the expression up to the part completed */
	size_t keep;        /* its length */
};

static void offer_name(const char *name, void *ctx)
{
	struct offer *o = ctx;

	strbuf_setlen(&o->word, o->keep);
	strbuf_addstr(&o->word, name);
	o->fn(o->word.buf, o->ctx);
}

/* Members of @t by name, those of anonymous members and base classes
 * flattened in, as they are named in an expression. */
static void offer_members(const struct dw_type *t, struct offer *o, int depth)
{
	if (!t || (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION) || depth > 8)
		return;
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];

		if (!mb->name || !strcmp(mb->name, "<base>"))
			offer_members(mb->type, o, depth + 1);
		else
			offer_name(mb->name, o);
	}
}

static int offer_var(const struct dw_var *v, void *ctx)
{
	offer_name(v->name, ctx);
	return 0;
}

/* Where the expression being typed at the end of @text starts. */
static size_t expr_start(const char *text, size_t n)
{
	size_t i = n;

	while (i > 0) {
		char c = text[i - 1];

		if (isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' || c == ':')
			i--;
		else if (c == '>' && i > 1 && text[i - 2] == '-')
			i -= 2;
		else if (c == ']') {
			while (i > 0 && text[i - 1] != '[')
				i--;
			if (i > 0)
				i--;
		} else {
			break;
		}
	}
	return i;
}

/* The last `.` or `->` of @e outside brackets: where the member being
 * typed starts (its index past the separator), or 0. */
static size_t member_start(const char *e, size_t n, size_t *sep)
{
	for (size_t i = n; i > 0; i--) {
		if (e[i - 1] == '.') {
			*sep = i - 1;
			return i;
		}
		if (e[i - 1] == '>' && i > 1 && e[i - 2] == '-') {
			*sep = i - 2;
			return i;
		}
		if (e[i - 1] == ']' || e[i - 1] == '[')
			return 0;
	}
	return 0;
}

void scope_complete(struct session *s, const char *pattern, const char *expr,
		    void (*fn)(const char *word, void *ctx), void *ctx)
{
	struct located_set found = { 0 };
	struct offer o = { .fn = fn, .ctx = ctx };
	size_t n = strlen(expr), start = expr_start(expr, n), sep = 0, part;
	struct dw_module *m;
	struct dw_at at;

	part = member_start(expr + start, n - start, &sep);
	strbuf_add(&o.word, expr, part ? start + part : start);
	o.keep = o.word.len;
	if (!part)
		script_foreach_word(offer_name, &o);
	if (!locate(s, pattern, &found, NULL)) {
		m = found.v[0].mod->dw;
		at = site_at(&found.v[0]);
		if (part) {
			const struct dw_type *t = path_type(m, &at, expr + start, sep);
			bool arrow = expr[start + sep] == '-';

			offer_members(pointee(t, arrow), &o, 0);
			if (t)
				codegen_methods(arrow ? pointee(t, true) : t, offer_name, &o);
		} else {
			struct dw_var self;

			dw_var_foreach_at(m, &at, offer_var, &o);
			if (!dw_var_find_at(m, &at, "this", &self))
				offer_members(pointee(self.type, true), &o, 0);
		}
	}
	located_set_release(&found);
	strbuf_release(&o.word);
}

/* ---- info scope ---- */

static void where_text(const struct dw_loc *l, struct strbuf *out)
{
	switch (l->kind) {
	case DW_LOC_REG:
		strbuf_addf(out, "in register %s", x86_dwarf_reg_name((unsigned)l->reg));
		break;
	case DW_LOC_MEM_REG:
		strbuf_addf(out, "in memory at %s%+lld", x86_dwarf_reg_name((unsigned)l->reg), (long long)l->offset);
		break;
	case DW_LOC_MEM_CFA:
		strbuf_addf(out, "in the frame at CFA%+lld", (long long)l->offset);
		break;
	case DW_LOC_MEM_ADDR:
		strbuf_addf(out, "static at 0x%llx", (unsigned long long)l->offset);
		break;
	case DW_LOC_VALUE_REG:
		strbuf_addf(out, "computed from register %s", x86_dwarf_reg_name((unsigned)l->reg));
		break;
	case DW_LOC_CONST:
		strbuf_addf(out, "the constant %lld", (long long)l->offset);
		break;
	case DW_LOC_OPTIMIZED_OUT:
		strbuf_addstr(out, "optimized out here");
		break;
	case DW_LOC_UNSUPPORTED:
		strbuf_addf(out, "not readable: %s", l->why ? l->why : "a location this version cannot read");
		break;
	case DW_LOC_MEM_EXPR:
		strbuf_addstr(out, "in memory at a computed address");
		break;
	case DW_LOC_VALUE_EXPR:
		strbuf_addstr(out, "computed from registers and memory");
		break;
	case DW_LOC_PIECES:
		strbuf_addstr(out, "in pieces");
		break;
	case DW_LOC_IMPLICIT_PTR:
		strbuf_addstr(out, "a pointer optimized away (its target is known)");
		break;
	}
}

struct info_ctx {
	struct strbuf *out;
	struct strbuf methods;
	struct dw_module *m;
	const struct dw_at *at;
};

static void add_method(const char *name, void *ctx)
{
	struct strbuf *sb = ctx;

	strbuf_addf(sb, "%s%s", sb->len ? ", " : "", name);
}

/* One name the probe sees: the variable a probe's expression would read
 * by that name there (the innermost that has it). */
static int info_var(const struct dw_var *named, void *ctx)
{
	struct info_ctx *ic = ctx;
	struct dw_var found, *v = &found;

	if (dw_var_find_at(ic->m, ic->at, named->name, &found))
		return 0;
	static const char *const scope[] = { [DW_VAR_PARAMETER] = "parameter", [DW_VAR_LOCAL] = "local",
					     [DW_VAR_GLOBAL] = "global" };

	strbuf_addf(ic->out, "    %s: %s, %s%s%s, ", v->name, v->type ? v->type->name : "?", scope[v->scope],
		    v->frame ? " of " : "", v->frame ? v->frame : "");
	where_text(&v->loc, ic->out);
	strbuf_setlen(&ic->methods, 0);
	if (v->type)
		codegen_methods(v->type, add_method, &ic->methods);
	if (ic->methods.len)
		strbuf_addf(ic->out, "; reads %.*s", (int)ic->methods.len, ic->methods.buf);
	strbuf_addch(ic->out, '\n');
	return 0;
}

int scope_info(struct session *s, const char *pattern, struct strbuf *out)
{
	struct located_set found = { 0 };
	struct info_ctx ic = { .out = out };
	int err = locate(s, pattern, &found, out);

	for (size_t i = 0; !err && i < found.n && i < INFO_SITES; i++) {
		const struct located *l = &found.v[i];
		struct dw_at at = site_at(l);

		strbuf_addf(out, "%s+0x%llx %s%s", dw_module_name(l->mod->dw), (unsigned long long)l->site.vaddr,
			    l->site.function ? l->site.function : "??", l->site.inlined ? " (inlined)" : "");
		if (l->site.file)
			strbuf_addf(out, " at %s:%u", l->site.file, l->site.line);
		strbuf_addstr(out, ":\n");
		ic.m = l->mod->dw;
		ic.at = &at;
		dw_var_foreach_at(l->mod->dw, &at, info_var, &ic);
	}
	if (!err && found.n > INFO_SITES)
		strbuf_addf(out, "... and %zu more sites\n", found.n - INFO_SITES);
	strbuf_release(&ic.methods);
	located_set_release(&found);
	return err;
}
