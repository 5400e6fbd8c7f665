/* casttype.c - the type a cast names, from the program's debug info (see
 * casttype.h).
 *
 * The base type comes first.  A builtin (int, unsigned long, bool) is
 * the same everywhere on x86-64 and needs no debug info.  A struct,
 * union, enum, class or typedef is the probe's module's when that module
 * defines it, as gdb takes the definition of the code it stopped in.
 * Otherwise every other module that defines the name is asked (the main
 * module first), since a cast reinterprets memory that may well come
 * from another module than the probe's (a library's handle held as
 * void *), and two different definitions make the name ambiguous.  The
 * user then names the module ("libfoo.so:struct node *") and only that
 * one is asked.  The qualifiers and declarators are then built on the base,
 * each level named as gdb names it.
 */
#include "tracer/casttype.h"
#include "dwarf/module.h"
#include "dwarf/vars.h"
#include "script/typespec.h"
#include "tracer/target.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ARRAY_BYTES (1ull << 30) /* of a type a cast makes */
#define MAX_NAMED 4                  /* modules an ambiguity names */

/* The modules that define a name, and the first definition. */
struct defs {
	struct tmodule *mods[MAX_NAMED];
	size_t n;                   /* modules defining it (may exceed MAX_NAMED) */
	struct tmodule *first;
	const struct dw_type *type; /* the first's definition */
	bool differ;                /* another module's is not the same */
};

static void add_def(struct defs *f, struct tmodule *m, const struct dw_type *t)
{
	if (!f->type) {
		f->first = m;
		f->type = t;
	} else if (!dw_type_same(f->type, t)) {
		f->differ = true;
	}
	if (f->n < MAX_NAMED)
		f->mods[f->n] = m;
	f->n++;
}

/* Every module of @t but @at that defines @name: the main module
 * first, then the others. */
static void find_defs(struct target *t, struct tmodule *at, const char *name, struct defs *f)
{
	struct tmodule *main_mod = target_main_module(t);
	const struct dw_type *d;

	memset(f, 0, sizeof(*f));
	if (main_mod && main_mod != at && (d = dw_type_named(main_mod->dw, name)))
		add_def(f, main_mod, d);
	for (size_t i = 0; i < target_module_count(t); i++) {
		struct tmodule *m = target_module(t, i);

		if (m == at || m == main_mod || m->special || !dw_module_has_dwarf(m->dw))
			continue;
		if ((d = dw_type_named(m->dw, name)))
			add_def(f, m, d);
	}
}

static void ambiguous(const struct typespec *ts, const struct defs *f, struct diag *d)
{
	struct strbuf mods = STRBUF_INIT, hint = STRBUF_INIT;
	size_t shown = f->n < MAX_NAMED ? f->n : MAX_NAMED;

	for (size_t i = 0; i < shown; i++)
		strbuf_addf(&mods, "%s%s", i == 0 ? "" : i + 1 == f->n ? " and " : ", ",
			    dw_module_name(f->mods[i]->dw));
	if (f->n > shown)
		strbuf_addf(&mods, " and %zu more", f->n - shown);
	strbuf_addf(&hint, "name the module to take it from: \"%s:", dw_module_name(f->mods[0]->dw));
	typespec_spell(ts, NULL, ts->n_ops, &hint);
	strbuf_addstr(&hint, "\"");
	diag_set(d, ts->name_loc, hint.buf, "type '%s' is ambiguous: %s define it differently",
		 ts->name, mods.buf);
	strbuf_release(&mods);
	strbuf_release(&hint);
}

/* "struct x" for a name that is no typedef when @m has such a tag. */
static void suggest_tag(struct dw_module *m, const char *name, struct strbuf *hint)
{
	static const char *const tags[] = { "struct", "union", "enum" };
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]) && !hint->len; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %s", tags[i], name);
		if (dw_type_named(m, sb.buf))
			strbuf_addf(hint, "did you mean '%s'? C names a tag with its keyword", sb.buf);
	}
	strbuf_release(&sb);
}

static int no_type(const struct typespec *ts, struct dw_module *m, const char *where, struct diag *d)
{
	struct strbuf hint = STRBUF_INIT;

	if (ts->base == TYPESPEC_NAMED)
		suggest_tag(m, ts->name, &hint);
	if (!hint.len)
		strbuf_addstr(&hint, ts->module ? "without 'MODULE:' every module of the target is searched"
						: "the type must be defined in a module with debug info");
	diag_set(d, ts->name_loc, hint.buf, "no type '%s' in %s", ts->name, where);
	strbuf_release(&hint);
	return -WR_ESEMANTIC;
}

/* The base type from the module @ts names. */
static int base_in_module(struct target *t, const struct typespec *ts, struct tmodule **owner,
			  const struct dw_type **base, struct diag *d)
{
	bool amb = false;
	struct tmodule *m = target_find_module(t, ts->module, &amb);

	if (!m) {
		diag_set(d, ts->module_loc, "`info modules` lists the modules of the target",
			 amb ? "module name '%s' matches more than one module"
			     : "no module '%s' is mapped by the target", ts->module);
		return -WR_ESEMANTIC;
	}
	*owner = m;
	*base = ts->base == TYPESPEC_BUILTIN ? dw_type_builtin(ts->name) : dw_type_named(m->dw, ts->name);
	if (!*base && ts->base == TYPESPEC_NAMED)
		*base = dw_type_builtin(ts->name);
	return *base ? 0 : no_type(ts, m->dw, dw_module_name(m->dw), d);
}

/* The base type from the probe's module @at, else from every other
 * module that defines it, all alike. */
static int base_anywhere(struct target *t, struct tmodule *at, const struct typespec *ts,
			 struct tmodule **owner, const struct dw_type **base, struct diag *d)
{
	struct defs f;

	*owner = at;
	*base = ts->base == TYPESPEC_BUILTIN ? dw_type_builtin(ts->name) : dw_type_named(at->dw, ts->name);
	if (*base)
		return 0;
	find_defs(t, at, ts->name, &f);
	if (f.differ) {
		ambiguous(ts, &f, d);
		return -WR_ESEMANTIC;
	}
	if (f.type) {
		*owner = f.first;
		*base = f.type;
		return 0;
	}
	*base = ts->base == TYPESPEC_NAMED ? dw_type_builtin(ts->name) : NULL;
	return *base ? 0 : no_type(ts, at->dw, "any module of the target", d);
}

int casttype_resolve(struct target *t, struct tmodule *at, const struct typespec *ts,
		     const struct dw_type **out, struct diag *d)
{
	struct tmodule *owner = at;
	const struct dw_type *base = NULL;
	int err = ts->module ? base_in_module(t, ts, &owner, &base, d)
			     : base_anywhere(t, at, ts, &owner, &base, d);

	*out = NULL;
	return err ? err : casttype_build(owner->dw, base, ts, out, d);
}

static enum dw_type_kind op_kind(enum typespec_op_kind k)
{
	return k == TYPESPEC_POINTER ? DW_TYPE_POINTER : k == TYPESPEC_ARRAY ? DW_TYPE_ARRAY
										: DW_TYPE_FUNCTION;
}

/* An array of @count @elem fits what a cast may make. */
static int check_array(const struct typespec *ts, const struct dw_type *elem, uint64_t count,
		       struct diag *d)
{
	if (!elem->size || elem->incomplete) {
		diag_set(d, ts->name_loc, "cast to a pointer to it instead: \"T *\"",
			 "an array of '%s' has no size: the type's size is not known", elem->name);
		return -WR_ESEMANTIC;
	}
	if (count > MAX_ARRAY_BYTES / elem->size) {
		diag_set(d, ts->name_loc, NULL, "an array of %llu '%s' is too big (more than %llu bytes)",
			 (unsigned long long)count, elem->name, MAX_ARRAY_BYTES);
		return -WR_ESEMANTIC;
	}
	return 0;
}

int casttype_build(struct dw_module *m, const struct dw_type *base, const struct typespec *ts,
		   const struct dw_type **out, struct diag *d)
{
	const char *name = ts->base == TYPESPEC_BUILTIN ? ts->name : base->name;
	struct strbuf sb = STRBUF_INIT;
	const struct dw_type *t = base;
	int err = 0;

	if (ts->quals) {
		typespec_spell(ts, name, 0, &sb);
		t = dw_type_renamed(m, base, sb.buf);
	}
	for (size_t i = 0; i < ts->n_ops && !err; i++) {
		const struct typespec_op *op = &ts->ops[i];

		if (op->kind == TYPESPEC_ARRAY)
			err = check_array(ts, t, op->count, d);
		strbuf_reset(&sb);
		typespec_spell(ts, name, i + 1, &sb);
		if (!err)
			t = dw_type_derived(m, op_kind(op->kind), t, op->count, sb.buf);
	}
	strbuf_release(&sb);
	*out = err ? NULL : t;
	return err;
}
