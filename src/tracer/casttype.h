/* casttype.h - the type a cast names, found in the traced program's
 * debug info: cast(p, "const struct node *"), cast(p, "uint32_t[4]"),
 * cast(p, "libfoo.so:union u *").
 *
 * Layer rule: tracer/ resolves names with dwarf/ and proc/; the IR
 * generator asks through its plan (plan_vars.find_type), the script
 * parser has already parsed the type name (script/typespec.h).
 *
 * A type name has one meaning or none: its base type is looked up in the
 * module it names, else in every module of the target that has debug
 * info, and when two define it differently the cast is refused with both
 * named, rather than one taken at random.  The same definition in several
 * modules (a typedef from a common header) is one type.
 */
#ifndef WRAITH_TRACER_CASTTYPE_H
#define WRAITH_TRACER_CASTTYPE_H

struct diag;
struct dw_module;
struct dw_type;
struct target;
struct tmodule;
struct typespec;

/* The type @ts names at a probe in module @at of target @t: its base
 * type taken from the module @ts names, else from the modules of @t that
 * define it (all alike), else a C builtin type; then its qualifiers and
 * declarators.  Returns 0 with *@out (borrowed: valid while @t's modules
 * are), or -WR_ESEMANTIC with @d set, located in the type's literal. */
int casttype_resolve(struct target *t, struct tmodule *at, const struct typespec *ts,
		     const struct dw_type **out, struct diag *d);

/* @ts built on @base (its base type, found in module @m, or a builtin),
 * the types made kept in @m's cache.  Returns 0 with *@out, or
 * -WR_ESEMANTIC with @d set (an array of a type of no known size, or
 * too big). */
int casttype_build(struct dw_module *m, const struct dw_type *base, const struct typespec *ts,
		   const struct dw_type **out, struct diag *d);

#endif
