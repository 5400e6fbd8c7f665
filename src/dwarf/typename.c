/* typename.c - rendering DWARF types as C and C++ declarations in gdb's
 * spelling (see typename.h).
 *
 * It exists apart from symbolize.c because spelling a declaration is a
 * concern of its own: a declarator is built inside out while the DIE
 * chain is followed from the declared name to the base type (pointers,
 * references, qualifiers, arrays, function types, member pointers), then
 * the base name and its qualifiers go in front.  The symbolizer uses it
 * only for parameter lists; C++ scope names come from the symbolizer's
 * cache through the context.
 */
#include "dwarf/typename.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPE_DEPTH 32 /* type DIEs followed when naming one type */

enum qual { Q_CONST = 1, Q_VOLATILE = 2, Q_RESTRICT = 4, Q_ATOMIC = 8 };

struct decl {
	const struct typename_ctx *ctx;
	struct strbuf inner; /* the declarator built so far, name innermost */
	bool pointer;        /* inner starts with a pointer-like declarator */
	unsigned ptr_quals;  /* qualifiers waiting for the pointer they qualify */
	unsigned base_quals; /* qualifiers of the base type */
};

static void prepend(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s), old = sb->len;

	strbuf_addchars(sb, ' ', n);
	memmove(sb->buf + n, sb->buf, old);
	memcpy(sb->buf, s, n);
}

/* Parentheses around a pointer declarator before an array or function
 * suffix: "int (*fn)(int)", "const int (&a)[3]". */
static void wrap_pointer(struct decl *d)
{
	if (d->pointer) {
		prepend(&d->inner, "(");
		strbuf_addch(&d->inner, ')');
		d->pointer = false;
	}
}

/* In gdb's order, whatever order the DWARF chain has; @lead: a space
 * before the first word too. */
static void add_quals(struct strbuf *sb, unsigned quals, bool lead)
{
	static const char *const words[] = { "const", "volatile", "restrict", "_Atomic" };
	size_t n = 0;

	for (unsigned i = 0; i < 4; i++) {
		if (!(quals & (1u << i)))
			continue;
		if (lead || n++)
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, words[i]);
	}
}

/* A C++ class or typedef's name with its scopes, "ns::Klass<int>". */
static const char *scoped_name(const struct typename_ctx *ctx, Dwarf_Die *die)
{
	if (ctx->name_of)
		return ctx->name_of(ctx->name_ctx, die);
	return ctx->qualified_name(ctx->c, ctx->m, die);
}

/* "*", then its qualifiers as gdb spaces them: "char * const p",
 * "char * const *pp", "const char * const&". */
static void add_pointer(struct decl *d, const char *op)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, op);
	add_quals(&sb, d->ptr_quals, true);
	if (d->ptr_quals && d->inner.len && d->inner.buf[0] != '&')
		strbuf_addch(&sb, ' ');
	prepend(&d->inner, sb.buf);
	strbuf_release(&sb);
	d->ptr_quals = 0;
	d->pointer = true;
}

/* The number of elements of subrange DIE @sub: false when DWARF leaves
 * it open or computes it at run time. */
static bool subrange_count(Dwarf_Die *sub, Dwarf_Word *count)
{
	Dwarf_Attribute attr;

	if (dwarf_formudata(dwarf_attr(sub, DW_AT_count, &attr), count) == 0)
		return true;
	if (dwarf_formudata(dwarf_attr(sub, DW_AT_upper_bound, &attr), count) != 0)
		return false;
	++*count;
	return true;
}

/* The dimension subrange DIE @sub declares, as gdb writes it: "[4]",
 * "[]" when DWARF leaves it open, "[variable length]" when its length
 * is computed at run time (a VLA's bound: an expression or a variable). */
static void add_subrange(struct strbuf *sb, Dwarf_Die *sub)
{
	Dwarf_Word count;

	if (subrange_count(sub, &count))
		strbuf_addf(sb, "[%llu]", (unsigned long long)count);
	else if (dwarf_hasattr(sub, DW_AT_count) || dwarf_hasattr(sub, DW_AT_upper_bound))
		strbuf_addstr(sb, "[variable length]");
	else
		strbuf_addstr(sb, "[]");
}

static void add_array_dims(struct decl *d, Dwarf_Die *array)
{
	Dwarf_Die sub;

	wrap_pointer(d);
	if (dwarf_child(array, &sub) != 0)
		return;
	do {
		if (dwarf_tag(&sub) == DW_TAG_subrange_type)
			add_subrange(&d->inner, &sub);
	} while (dwarf_siblingof(&sub, &sub) == 0);
}

static void add_function_suffix(struct decl *d, Dwarf_Die *fn)
{
	struct strbuf params = STRBUF_INIT;
	struct typename_ctx inner = *d->ctx;

	inner.level++;
	wrap_pointer(d);
	typename_render_params(&inner, fn, false, &params);
	strbuf_addf(&d->inner, "(%s)", params.buf);
	strbuf_release(&params);
}

/* A qualifier on a pointer goes after its star ("char * const"); on
 * anything else it qualifies the base ("const char"). */
static void add_qualifier(struct decl *d, Dwarf_Die *qual, unsigned q)
{
	Dwarf_Die target;
	int tag = die_type(qual, &target) ? dwarf_tag(&target) : 0;

	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_ptr_to_member_type)
		d->ptr_quals |= q;
	else
		d->base_quals |= q;
}

/* "int Klass::*member" */
static void add_member_pointer(struct decl *d, Dwarf_Die *type)
{
	Dwarf_Die klass;
	const char *name = NULL;

	if (die_ref(type, DW_AT_containing_type, &klass))
		name = d->ctx->cxx ? scoped_name(d->ctx, &klass) : dwarf_diename(&klass);
	add_pointer(d, "::*");
	prepend(&d->inner, name ? name : "?");
}

static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return "struct";
	case DW_TAG_class_type:
		return "class";
	case DW_TAG_union_type:
		return "union";
	default:
		return "enum";
	}
}

const char *typename_base(const char *name)
{
	static const char *const names[][2] = {
		{ "short int", "short" },
		{ "short unsigned int", "unsigned short" },
		{ "long int", "long" },
		{ "long unsigned int", "unsigned long" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
	};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i][0]) == 0)
			return names[i][1];
	return name;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A number in a template argument, at *@p: clang's suffix in gdb's
 * canonical spelling ("3UL" is "3ul"); whether it changed. */
static bool number(const char **p, struct strbuf *out)
{
	const char *q = *p;
	bool lower = false;

	while (*q >= '0' && *q <= '9')
		strbuf_addch(out, *q++);
	while (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L') {
		lower |= *q == 'U' || *q == 'L';
		strbuf_addch(out, (char)(*q == 'U' ? 'u' : *q == 'L' ? 'l' : *q));
		q++;
	}
	*p = q;
	return lower;
}

/* The end of the template argument starting at @p: its ',' or closing
 * '>' (nested brackets skipped). */
static const char *template_arg_end(const char *p)
{
	int depth = 0;

	for (; *p; p++)
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
	return p;
}

/* @s with each template argument's leading const written after what it
 * qualifies, into @out, as gdb's canonical names have it: "pair<const
 * int, int>" is "pair<int const, int>", "f<const Req&>" "f<Req const&>".
 * Whether it changed. */
static bool const_after(const char *s, size_t n, struct strbuf *out)
{
	const char *p = s, *end = s + n;
	bool changed = false;

	while (p < end) {
		bool arg_start = p > s && (p[-1] == '<' || (p - s >= 2 && p[-2] == ',' && p[-1] == ' '));
		const char *a, *e, *suffix;

		if (!arg_start || end - p < 6 || strncmp(p, "const ", 6)) {
			strbuf_addch(out, *p++);
			continue;
		}
		a = p + 6;
		e = template_arg_end(a);
		if (e > end)
			e = end;
		for (suffix = e; suffix > a && (suffix[-1] == '*' || suffix[-1] == '&'); suffix--)
			;
		if (suffix == a || suffix[-1] == ' ' || (suffix - a >= 5 && !strncmp(suffix - 5, "const", 5))) {
			strbuf_addch(out, *p++); /* "const T* const" and the like: as written */
			continue;
		}
		const_after(a, (size_t)(suffix - a), out);
		strbuf_addstr(out, " const");
		strbuf_add(out, suffix, (size_t)(e - suffix));
		p = e;
		changed = true;
	}
	return changed;
}

char *typename_canonical(const char *name)
{
	/* longest first, so that "long long int" is not read as "long int" */
	static const char *const gcc[] = { "long long unsigned int", "short unsigned int", "long unsigned int",
					   "long long int", "short int", "long int" };
	struct strbuf out = STRBUF_INIT, moved = STRBUF_INIT;
	bool changed = false;
	const char *p = strchr(name, '<');

	/* gdb's parser of names leaves one holding a function type as
	 * written: "function<void (const Node &)>" */
	if (!p || strchr(name, '('))
		return NULL;
	strbuf_add(&out, name, (size_t)(p - name));
	while (*p) {
		size_t i, n = 0;

		for (i = 0; (p == name || !ident_char(p[-1])) && i < sizeof(gcc) / sizeof(gcc[0]); i++) {
			n = strlen(gcc[i]);
			if (!strncmp(p, gcc[i], n) && !ident_char(p[n]))
				break;
		}
		if ((p == name || !ident_char(p[-1])) && i < sizeof(gcc) / sizeof(gcc[0])) {
			strbuf_addstr(&out, typename_base(gcc[i]));
			p += n;
			changed = true;
		} else if (p[0] == ' ' && (p[1] == '*' || p[1] == '&') &&
			   (ident_char(p[-1]) || p[-1] == '>' || p[-1] == '*' || p[-1] == '&')) {
			p++; /* clang's "Node *": gdb's canonical "Node*" */
			changed = true;
		} else if (*p >= '0' && *p <= '9' && !ident_char(p[-1])) {
			changed |= number(&p, &out);
		} else {
			strbuf_addch(&out, *p++);
		}
	}
	if (!changed) {
		strbuf_release(&out);
		strbuf_addstr(&out, name);
	}
	changed |= const_after(out.buf, out.len, &moved);
	strbuf_release(&out);
	if (!changed) {
		strbuf_release(&moved);
		return NULL;
	}
	return strbuf_detach(&moved);
}

/* The name a declaration starts with: "int", "struct foo", "std::string". */
static void base_name(struct decl *d, Dwarf_Die *type, struct strbuf *out)
{
	int tag = dwarf_tag(type);
	const char *name = dwarf_diename(type);
	bool aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			 tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type;

	if (aggregate && !name) {
		/* gdb's spelling, by the tag: GCC makes a lambda's closure a
		 * struct, clang a class */
		strbuf_addf(out, "%s {...}", tag_keyword(tag));
		return;
	}
	if (aggregate && !d->ctx->cxx)
		strbuf_addf(out, "%s ", tag_keyword(tag));
	if (d->ctx->cxx && (aggregate || tag == DW_TAG_typedef))
		name = scoped_name(d->ctx, type);
	if (tag == DW_TAG_base_type)
		name = typename_base(name);
	strbuf_addstr(out, name ? name : "?");
}

/* Step from @type to the type it modifies, adding to the declarator;
 * false when @type is the base of the declaration. */
static bool apply_modifier(struct decl *d, Dwarf_Die *type)
{
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
		add_pointer(d, "*");
		return true;
	case DW_TAG_reference_type:
		add_pointer(d, "&");
		return true;
	case DW_TAG_rvalue_reference_type:
		add_pointer(d, "&&");
		return true;
	case DW_TAG_const_type:
		add_qualifier(d, type, Q_CONST);
		return true;
	case DW_TAG_volatile_type:
		add_qualifier(d, type, Q_VOLATILE);
		return true;
	case DW_TAG_restrict_type:
		add_qualifier(d, type, Q_RESTRICT);
		return true;
	case DW_TAG_atomic_type:
		add_qualifier(d, type, Q_ATOMIC);
		return true;
	case DW_TAG_ptr_to_member_type:
		add_member_pointer(d, type);
		return true;
	case DW_TAG_array_type:
		/* a named one is a vector type: "__m512i" */
		if (dwarf_diename(type))
			return false;
		add_array_dims(d, type);
		return true;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram: /* a function's own type (typename_render_type) */
		add_function_suffix(d, type);
		return true;
	default:
		return false;
	}
}

/* Append "<type> <name>" for the type DIE @type (NULL: void) declaring
 * @name ("" for an abstract declarator), e.g. "int (*fn)(int)". */
static void render_decl(const struct typename_ctx *ctx, Dwarf_Die *type, const char *name,
			struct strbuf *out)
{
	struct decl d = { ctx, STRBUF_INIT, false, 0, 0 };
	Dwarf_Die cur;
	bool have = type != NULL;
	int depth = 0;

	strbuf_addstr(&d.inner, name);
	if (have)
		cur = *type;
	while (have && depth++ < MAX_TYPE_DEPTH && apply_modifier(&d, &cur))
		have = die_type(&cur, &cur);
	add_quals(out, d.base_quals, false);
	if (d.base_quals)
		strbuf_addch(out, ' ');
	if (depth > MAX_TYPE_DEPTH)
		strbuf_addstr(out, "?");
	else if (have)
		base_name(&d, &cur, out);
	else
		strbuf_addstr(out, "void");
	if (d.inner.len)
		strbuf_addf(out, " %s", d.inner.buf);
	strbuf_release(&d.inner);
}

#define MAX_TYPE_NEST 8 /* function types within parameter lists within ... */

static void add_separator(struct strbuf *out, size_t *n)
{
	if ((*n)++)
		strbuf_addstr(out, ", ");
}

/* ---- Rust ---- */

static void add_rust_type(const struct typename_ctx *ctx, Dwarf_Die *type, int depth, struct strbuf *out);

/* The number of elements of array DIE @array ("" when DWARF leaves it
 * open). */
static void add_rust_count(Dwarf_Die *array, struct strbuf *out)
{
	Dwarf_Word count;
	Dwarf_Die sub;

	if (dwarf_child(array, &sub) != 0)
		return;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (subrange_count(&sub, &count))
			strbuf_addf(out, "; %llu", (unsigned long long)count);
		return;
	} while (dwarf_siblingof(&sub, &sub) == 0);
}

/* "fn (u32, &str) -> u64", "fn ()" for the subroutine or subprogram @fn. */
static void add_rust_fn(const struct typename_ctx *ctx, Dwarf_Die *fn, int depth, struct strbuf *out)
{
	Dwarf_Die child, type;
	size_t n = 0;

	strbuf_addstr(out, "fn (");
	if (dwarf_child(fn, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			add_separator(out, &n);
			add_rust_type(ctx, die_type(&child, &type) ? &type : NULL, depth + 1, out);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	strbuf_addch(out, ')');
	if (die_type(fn, &type)) {
		strbuf_addstr(out, " -> ");
		add_rust_type(ctx, &type, depth + 1, out);
	}
}

/* Type DIE @type (NULL: the unit type) as gdb writes a Rust type: every
 * pointer and reference "*mut T" (gdb reads no mutability from DWARF),
 * arrays "[T; 3]", functions "fn (T) -> R", named types by their scopes
 * ("alloc::vec::Vec<i32, alloc::alloc::Global>", "&str", "(u8, f64)"). */
static void add_rust_type(const struct typename_ctx *ctx, Dwarf_Die *type, int depth, struct strbuf *out)
{
	Dwarf_Die next;
	const char *name;
	int tag;

	if (!type) {
		strbuf_addstr(out, "()");
		return;
	}
	if (depth > MAX_TYPE_DEPTH) {
		strbuf_addch(out, '?');
		return;
	}
	tag = dwarf_tag(type);
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		strbuf_addstr(out, "*mut ");
		add_rust_type(ctx, die_type(type, &next) ? &next : NULL, depth + 1, out);
		return;
	case DW_TAG_array_type:
		strbuf_addch(out, '[');
		add_rust_type(ctx, die_type(type, &next) ? &next : NULL, depth + 1, out);
		add_rust_count(type, out);
		strbuf_addch(out, ']');
		return;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:
		add_rust_fn(ctx, type, depth, out);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		add_rust_type(ctx, die_type(type, &next) ? &next : NULL, depth + 1, out);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
		name = scoped_name(ctx, type);
		break;
	default:
		name = dwarf_diename(type);
		break;
	}
	strbuf_addstr(out, name ? name : "?");
}

/* Append the parameters among the children of @parent; a template
 * parameter pack's members are parameters too (unnamed in DWARF). */
static void add_params(const struct typename_ctx *ctx, Dwarf_Die *parent, bool names,
		       struct strbuf *out, size_t *n)
{
	Dwarf_Die child, type;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = names ? die_string(&child, DW_AT_name) : NULL;

		if (tag == DW_TAG_unspecified_parameters) {
			add_separator(out, n);
			strbuf_addstr(out, "...");
		} else if (tag == DW_TAG_formal_parameter && !names && die_flag(&child, DW_AT_artificial)) {
			/* a method type's object pointer; gdb shows it const */
			add_separator(out, n);
			render_decl(ctx, die_type(&child, &type) ? &type : NULL, "", out);
			if (ctx->cxx && die_type(&child, &type) && dwarf_tag(&type) == DW_TAG_pointer_type)
				strbuf_addstr(out, " const");
		} else if (tag == DW_TAG_formal_parameter && ctx->rust) {
			add_separator(out, n);
			if (name)
				strbuf_addf(out, "%s: ", name);
			add_rust_type(ctx, die_type(&child, &type) ? &type : NULL, 0, out);
		} else if (tag == DW_TAG_formal_parameter && !die_flag(&child, DW_AT_artificial)) {
			add_separator(out, n);
			render_decl(ctx, die_type(&child, &type) ? &type : NULL, name ? name : "", out);
		} else if (tag == DW_TAG_GNU_formal_parameter_pack) {
			add_params(ctx, &child, names, out, n);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

void typename_render_type(Dwarf_Die *type, const char *(*name)(void *ctx, Dwarf_Die *die), void *name_ctx,
			  struct strbuf *out)
{
	struct typename_ctx ctx = { .name_of = name, .name_ctx = name_ctx, .cxx = name != NULL };

	render_decl(&ctx, type, "", out);
}

void typename_render_rust(Dwarf_Die *type, const char *(*name)(void *ctx, Dwarf_Die *die), void *name_ctx,
			  struct strbuf *out)
{
	struct typename_ctx ctx = { .name_of = name, .name_ctx = name_ctx, .rust = true };

	add_rust_type(&ctx, type, 0, out);
}

bool typename_is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	int lang;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* The parameter list of the subprogram (@names: with their names, the
 * artificial this left out) or of the subroutine type @fn (all types: gdb
 * shows a member function pointer's object parameter). */
void typename_render_params(const struct typename_ctx *ctx, Dwarf_Die *fn, bool names,
			    struct strbuf *out)
{
	size_t n = 0;

	if (ctx->level > MAX_TYPE_NEST) {
		strbuf_addstr(out, "...");
		return;
	}
	add_params(ctx, fn, names, out, &n);
	if (!n && !names && !ctx->cxx && die_flag(fn, DW_AT_prototyped))
		strbuf_addstr(out, "void");
}

static bool is_scope_tag(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static void add_scope_name(struct strbuf *sb, Dwarf_Die *scope)
{
	const char *name = dwarf_diename(scope);

	if (!name)
		name = dwarf_tag(scope) == DW_TAG_namespace ? "(anonymous namespace)" : "{unnamed}";
	strbuf_addstr(sb, name);
	strbuf_addstr(sb, "::");
}

#define MAX_SCOPE_PATH 32

/* The DIEs holding @die, itself first and its unit last, as
 * dwarf_getscopes_die() gives them; that one does not look inside a
 * union (std::_Any_data's member functions), so where it finds nothing
 * they are found by their offsets, which grow down the tree, from the
 * unit down.  Returns how many (0: not found); caller frees *@out. */
static int scopes_of(Dwarf_Die *die, Dwarf_Die **out)
{
	Dwarf_Off target = dwarf_dieoffset(die);
	Dwarf_Die path[MAX_SCOPE_PATH], child, last;
	int n = dwarf_getscopes_die(die, out), depth = 0;

	if (n > 0 || !dwarf_diecu(die, &path[0], NULL, NULL))
		return n;
	while (++depth < MAX_SCOPE_PATH && dwarf_child(&path[depth - 1], &child) == 0) {
		last = child;
		while (dwarf_siblingof(&child, &child) == 0 && dwarf_dieoffset(&child) <= target)
			last = child;
		if (dwarf_dieoffset(&last) > target)
			break;
		path[depth] = last;
		if (dwarf_dieoffset(&last) != target)
			continue;
		*out = xcalloc((size_t)depth + 1, sizeof(**out));
		for (int i = 0; i <= depth; i++)
			(*out)[i] = path[depth - i];
		return depth + 1;
	}
	return 0;
}

bool typename_scoped_name(Dwarf_Die *die, struct strbuf *out)
{
	Dwarf_Die *scopes = NULL;
	const char *name = dwarf_diename(die);
	int n, top = 1;

	if (!name)
		return false;
	n = scopes_of(die, &scopes);
	while (top < n && is_scope_tag(dwarf_tag(&scopes[top])))
		top++;
	/* gdb gives nothing inside an unnamed class a prefix (a lambda's
	 * closure type: its inlined operator() is "operator()"), so the
	 * name starts after the innermost unnamed class. */
	for (int i = 1; i < top; i++)
		if (!dwarf_diename(&scopes[i]) && dwarf_tag(&scopes[i]) != DW_TAG_namespace) {
			top = i;
			break;
		}
	for (int i = top - 1; i >= 1; i--)
		add_scope_name(out, &scopes[i]);
	strbuf_addstr(out, name);
	free(scopes);
	return true;
}

bool typename_has_params(Dwarf_Die *fn)
{
	Dwarf_Die child;

	if (dwarf_child(fn, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_unspecified_parameters ||
		    tag == DW_TAG_GNU_formal_parameter_pack)
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}
