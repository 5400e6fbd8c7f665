/* stdlib.c - the C++ standard library's types recognised by their DWARF
 * (stdlib.h).  A type is one of them when its own name (dw_type.tag_name)
 * starts with the library's name for it and the members the layout needs
 * are where the library puts them; a member missing (another version of
 * the library) makes it not recognised, and it prints member by member
 * as any struct does.  Facts of the layouts come from the libraries'
 * headers as installed (libstdc++ 12, libc++ 19).
 */
#include "dwarf/stdlib.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* The member at dotted @path of @t: its offset, its type. */
static const struct dw_type *path(const struct dw_type *t, const char *p, int64_t *off)
{
	char name[64];
	uint64_t at = 0, o;

	*off = 0;
	while (t && *p) {
		size_t n = strcspn(p, ".");
		const struct dw_member *mb;

		if (n >= sizeof(name))
			return NULL;
		memcpy(name, p, n);
		name[n] = 0;
		mb = dw_type_member(t, name, &o);
		if (!mb)
			return NULL;
		at += o;
		t = mb->type;
		p += n + (p[n] == '.');
	}
	*off = (int64_t)at;
	return t;
}

/* Several paths at once: false when one is missing. */
static bool paths(const struct dw_type *t, const char *pa, int64_t *a, const char *pb, int64_t *b)
{
	return path(t, pa, a) && (!pb || path(t, pb, b));
}

/* The first member of @t, depth first through bases and members, whose
 * name is @name; its offset in *@off. */
static const struct dw_type *deep(const struct dw_type *t, const char *name, int64_t *off, int depth)
{
	if (depth > 12 || (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION))
		return NULL;
	for (size_t i = 0; i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];
		const struct dw_type *found;
		int64_t inner;

		if (mb->name && !strcmp(mb->name, name)) {
			*off = (int64_t)mb->offset;
			return mb->type;
		}
		found = deep(mb->type, name, &inner, depth + 1);
		if (found) {
			*off = (int64_t)mb->offset + inner;
			return found;
		}
	}
	return NULL;
}

static const struct dw_type *targ(const struct dw_type *t, size_t i)
{
	return t && i < t->n_targs ? t->targs[i] : NULL;
}

/* libstdc++'s type printers for class templates with default arguments
 * (TemplateTypePrinter): the template, and each defaulted argument's
 * spelling, {0} and {1} standing for the first two arguments. */
static const struct defaults {
	const char *name;
	const char *args[5];
} template_defaults[] = {
	{ "std::vector<", { NULL, "std::allocator<{0}>" } },
	{ "std::deque<", { NULL, "std::allocator<{0}>" } },
	{ "std::__cxx11::list<", { NULL, "std::allocator<{0}>" } },
	{ "std::list<", { NULL, "std::allocator<{0}>" } }, /* libc++'s */
	{ "std::forward_list<", { NULL, "std::allocator<{0}>" } },
	{ "std::unique_ptr<", { NULL, "std::default_delete<{0}>" } },
	{ "std::map<", { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<const {0}, {1}>>" } },
	{ "std::multimap<", { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<const {0}, {1}>>" } },
	{ "std::set<", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "std::multiset<", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "std::unordered_map<",
	  { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<std::pair<const {0}, {1}>>" } },
	{ "std::unordered_multimap<",
	  { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<std::pair<const {0}, {1}>>" } },
	{ "std::unordered_set<", { NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<{0}>" } },
	{ "std::unordered_multiset<", { NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<{0}>" } },
};

/* @a and @b are the same name but for spaces. */
static bool same_spelling(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
	}
}

/* @name without libc++'s inline namespace, into @buf: "std::__1::vector<int,
 * std::__1::allocator<int> >" as "std::vector<int, std::allocator<int> >".
 * No gdb printer shows libc++'s values here, so none names their types:
 * wraith writes them as libstdc++'s type printers write libstdc++'s, at
 * every depth. */
static void without_inline_ns(const char *name, char *buf, size_t size)
{
	size_t n = 0;

	while (*name && n + 1 < size) {
		if (!strncmp(name, "std::__1::", 10) && n + 5 < size) {
			memcpy(buf + n, "std::", 5);
			n += 5;
			name += 10;
		} else {
			buf[n++] = *name++;
		}
	}
	buf[n] = '\0';
}

/* @a and @b are the same name but for spaces and libc++'s inline
 * namespace. */
static bool same_name(const char *a, const char *b)
{
	char pa[512], pb[512];

	without_inline_ns(a, pa, sizeof(pa));
	without_inline_ns(b, pb, sizeof(pb));
	return same_spelling(pa, pb);
}

/* @fmt with {0} and {1} replaced by the names of @t's first arguments. */
static void default_spelling(const char *fmt, const struct dw_type *t, char *buf, size_t size)
{
	size_t n = 0;

	for (const char *p = fmt; *p && n + 1 < size; p++) {
		if (p[0] == '{' && (p[1] == '0' || p[1] == '1') && p[2] == '}' && (size_t)(p[1] - '0') < t->n_targs) {
			n += (size_t)snprintf(buf + n, size - n, "%s", t->targs[p[1] - '0']->name);
			p += 2;
		} else {
			buf[n++] = *p;
		}
	}
	buf[n < size ? n : size - 1] = '\0';
}

static const char *recognized(const struct dw_type *t, int depth);

/* A template argument as libstdc++'s type printers write it: through the
 * printers again, a pointer as its target's name and '*'. */
static void argument_name(const struct dw_type *a, int depth, char *buf, size_t size)
{
	if (a->kind == DW_TYPE_POINTER && a->target && depth < 8) {
		argument_name(a->target, depth + 1, buf, size);
		strncat(buf, "*", size - strlen(buf) - 1);
		return;
	}
	snprintf(buf, size, "%s", recognized(a, depth + 1));
}

/* "std::vector<int>" for std::vector<int, std::allocator<int> >, as
 * TemplateTypePrinter: the arguments left out that are their defaults,
 * the others written as these printers write them; NULL when @t is no
 * such template or an argument is not its default. */
static const char *without_defaults(const struct dw_type *t, int depth)
{
	static char ring[8][512];
	static unsigned next;
	const char *n = t->tag_name ? t->tag_name : t->name;
	const struct defaults *d = NULL;
	char *b, want[512], arg[256], plain[512];
	size_t len;

	without_inline_ns(n ? n : "", plain, sizeof(plain));
	for (size_t i = 0; n && i < sizeof(template_defaults) / sizeof(template_defaults[0]); i++)
		if (starts(plain, template_defaults[i].name))
			d = &template_defaults[i];
	if (!d || !t->n_targs || t->n_targs > 5 || depth > 8)
		return NULL;
	for (size_t i = 0; i < t->n_targs; i++) {
		if (!d->args[i])
			continue;
		default_spelling(d->args[i], t, want, sizeof(want));
		if (!t->targs[i]->name || !same_name(t->targs[i]->name, want)) {
			/* GCC writes the pair's key "int const" */
			if (!strstr(d->args[i], "const {0}"))
				return NULL;
			default_spelling(strstr(d->args[i], "std::pair<") ? "std::allocator<std::pair<{0} const, {1}>>" : "",
					 t, want, sizeof(want));
			if (!same_name(t->targs[i]->name, want))
				return NULL;
		}
	}
	b = ring[next++ % 8];
	len = (size_t)snprintf(b, sizeof(ring[0]), "%.*s", (int)(strchr(d->name, '<') - d->name + 1),
			       starts(d->name, "std::__cxx11::") ? "std::list<" : d->name);
	for (size_t i = 0; i < t->n_targs && !d->args[i] && len < sizeof(ring[0]); i++) {
		argument_name(t->targs[i], depth, arg, sizeof(arg));
		len += (size_t)snprintf(b + len, sizeof(ring[0]) - len, "%s%s", i ? ", " : "", arg);
	}
	if (len < sizeof(ring[0]) - 1)
		strcat(b, ">");
	return b;
}

static const char *recognized(const struct dw_type *t, int depth)
{
	static char ring[8][512];
	static unsigned next;
	const char *n = t->tag_name ? t->tag_name : t->name, *r;
	char *b;

	if (starts(n, "std::__cxx11::basic_string<char,") || starts(n, "std::__1::basic_string<char,"))
		return "std::string";
	if ((r = without_defaults(t, depth)))
		return r;
	if (!starts(t->name, "std::__1::"))
		return t->name;
	b = ring[next++ % 8]; /* libc++'s other templates (std::pair) */
	without_inline_ns(t->name, b, sizeof(ring[0]));
	return b;
}

const char *dw_std_type_name(const struct dw_type *t)
{
	return recognized(t, 0);
}

bool dw_std_is_pair(const struct dw_type *t)
{
	const char *n = t->tag_name ? t->tag_name : t->name;
	uint64_t off;

	return t->kind == DW_TYPE_STRUCT && starts(n, "std::pair<") && dw_type_member(t, "first", &off) &&
	       dw_type_member(t, "second", &off);
}

/* "std::unique_ptr<Item>": the printer's name with its first argument. */
static const char *with_arg(const char *what, const struct dw_type *arg)
{
	static char buf[8][512];
	static unsigned next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s<%s>", what, arg ? dw_std_type_name(arg) : "?");
	return b;
}

/* The end of the template argument that starts at @p: the ',' or '>'
 * that closes it. */
static char *argument_end(char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
	}
	return p;
}

/* A name's template arguments with their leading const written after
 * them, as gdb's canonical C++ names have it (`std::pair<std::string
 * const, int>` for DWARF's `std::pair<const std::string, int>`), in
 * place; a pointer or reference argument is left as it is. */
static void const_after(char *name)
{
	char *p = name, tmp[512];

	while ((p = strstr(p, "const ")) != NULL) {
		char *end = argument_end(p + 6);
		size_t n = (size_t)(end - (p + 6));

		if (p == name || !(p[-1] == '<' || (p - name >= 2 && p[-2] == ',' && p[-1] == ' ')) || !n ||
		    end[-1] == '*' || end[-1] == '&' || n + 7 > sizeof(tmp)) {
			p += 6;
			continue;
		}
		memcpy(tmp, p + 6, n);
		memcpy(tmp + n, " const", 6);
		memcpy(p, tmp, n + 6); /* the same length: "const X" -> "X const" */
		p += 1;
	}
}

/* "std::unique_ptr<std::__cxx11::basic_string<char, std::char_traits<char>,
 * std::allocator<char> >>": the argument's own name, as libstdc++'s smart
 * pointer printers write it (str() of the type, no type printer). */
static const char *with_own_arg(const char *what, const struct dw_type *arg)
{
	static char buf[8][512];
	static unsigned next;
	char *b = buf[next++ % 8];

	char name[sizeof(buf[0]) - 64];

	/* the argument's own const stays in front (gdb writes a cv type
	 * so), its template arguments' go after them */
	snprintf(name, sizeof(name), "%s", arg && arg->name ? arg->name : "?");
	const_after(name);
	snprintf(b, sizeof(buf[0]), "%s<%s>", what, name);
	return b;
}

/* "std::variant<int, std::string>" */
static const char *with_args(const char *what, const struct dw_type *t)
{
	static char buf[4][512];
	static unsigned next;
	char *b = buf[next++ % 4];
	size_t n = (size_t)snprintf(b, sizeof(buf[0]), "%s<", what);

	for (size_t i = 0; i < t->n_targs && n < sizeof(buf[0]); i++)
		n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "%s%s", i ? ", " : "", dw_std_type_name(t->targs[i]));
	if (n < sizeof(buf[0]) - 1)
		strcat(b, ">");
	return b;
}

static bool elem_ok(struct dw_std *s)
{
	return s->elem && s->elem->size;
}

/* ---- the layouts of both libraries told by member paths alone ---- */

enum {
	L_ELEM = 1,    /* the first template argument is the element: it has a size */
	L_ARG = 2,     /* the label is the printer's, with the first argument */
	L_COUNT = 4,   /* b holds a count, not an end pointer */
	L_NO_C = 8,    /* c is none (-1): no capacity */
	L_DEEP = 16,   /* a and b name members found at any depth (deep()) */
	L_LIBCXX = 32,
	L_WEAK = 64,   /* a weak_ptr */
	L_OR = 128,    /* when its members are missing, the next row may match */
	L_OWN = 256,   /* the argument as gdb's str() writes a type, not through the
			* type printers (libstdc++'s smart pointers' printers) */
};

/* One type of a library: the prefix of its name, what it is, and the
 * member paths (dotted, or names under L_DEEP) of offsets a, b and c
 * (NULL: none); cc and dd, a shared_ptr's counts in its control block. */
struct layout {
	const char *prefix;
	enum dw_std_kind kind;
	enum dw_std_shape shape;
	const char *label;
	const char *a, *b, *c;
	unsigned flags;
	int cc, dd;
};

static const struct layout layouts[] = {
	/* libstdc++ */
	{ "std::__cxx11::basic_string<char,", DW_STD_STRING, 0, NULL, "_M_dataplus._M_p", "_M_string_length", NULL, 0, 0, 0 },
	{ "std::basic_string_view<char,", DW_STD_STRING, 0, NULL, "_M_str", "_M_len", NULL, 0, 0, 0 },
	{ "std::vector<bool,", DW_STD_BITS, 0, "std::vector<bool>", "_M_impl._M_start._M_p", "_M_impl._M_finish._M_p",
	  "_M_impl._M_end_of_storage", 0, 0, 0 },
	{ "std::vector<", DW_STD_VECTOR, DW_SHAPE_VECTOR, "std::vector", "_M_impl._M_start", "_M_impl._M_finish",
	  "_M_impl._M_end_of_storage", L_ELEM, 0, 0 },
	{ "std::span<", DW_STD_VECTOR, DW_SHAPE_SPAN, "std::span", "_M_ptr", "_M_extent._M_extent_value", NULL,
	  L_ELEM | L_COUNT | L_NO_C, 0, 0 },
	{ "std::unique_ptr<", DW_STD_UNIQUE_PTR, 0, "std::unique_ptr", "_M_head_impl", NULL, NULL, L_ARG | L_OWN | L_DEEP, 0,
	  0 },
	{ "std::shared_ptr<", DW_STD_SHARED_PTR, 0, "std::shared_ptr", "_M_ptr", "_M_refcount._M_pi", NULL, L_ARG | L_OWN, 8,
	  12 },
	{ "std::weak_ptr<", DW_STD_SHARED_PTR, 0, "std::weak_ptr", "_M_ptr", "_M_refcount._M_pi", NULL,
	  L_ARG | L_OWN | L_WEAK, 8, 12 },
	{ "std::optional<", DW_STD_OPTIONAL, 0, "std::optional", "_M_payload._M_payload", "_M_payload._M_engaged", NULL,
	  L_ARG | L_ELEM, 0, 0 },
	{ "std::atomic<", DW_STD_ATOMIC, 0, "std::atomic", "_M_i", NULL, NULL, L_ARG | L_ELEM | L_DEEP | L_OR, 0, 0 },
	{ "std::atomic<", DW_STD_ATOMIC, 0, "std::atomic", "_M_p", NULL, NULL, L_ARG | L_ELEM | L_DEEP, 0, 0 },
	/* libc++ (its string: llvm_string()) */
	{ "std::__1::basic_string_view<char,", DW_STD_STRING, 0, NULL, "__data_", "__size_", NULL, 0, 0, 0 },
	{ "std::__1::vector<bool,", DW_STD_BITS, 0, "std::vector<bool>", "__begin_", "__size_", "__cap_alloc_",
	  L_COUNT | L_LIBCXX, 0, 0 },
	{ "std::__1::vector<", DW_STD_VECTOR, DW_SHAPE_VECTOR, "std::vector", "__begin_", "__end_", "__end_cap_",
	  L_ELEM | L_LIBCXX, 0, 0 },
	{ "std::__1::span<", DW_STD_VECTOR, DW_SHAPE_SPAN, "std::span", "__data_", "__size_", NULL,
	  L_ELEM | L_COUNT | L_NO_C | L_LIBCXX, 0, 0 },
	{ "std::__1::unique_ptr<", DW_STD_UNIQUE_PTR, 0, "std::unique_ptr", "__ptr_", NULL, NULL, L_ARG | L_LIBCXX, 0, 0 },
	{ "std::__1::shared_ptr<", DW_STD_SHARED_PTR, 0, "std::shared_ptr", "__ptr_", "__cntrl_", NULL,
	  L_ARG | L_LIBCXX, 8, 16 },
	{ "std::__1::weak_ptr<", DW_STD_SHARED_PTR, 0, "std::weak_ptr", "__ptr_", "__cntrl_", NULL,
	  L_ARG | L_WEAK | L_LIBCXX, 8, 16 },
	{ "std::__1::optional<", DW_STD_OPTIONAL, 0, "std::optional", "__val_", "__engaged_", NULL,
	  L_ARG | L_ELEM | L_DEEP | L_LIBCXX, 0, 0 },
	{ "std::__1::atomic<", DW_STD_ATOMIC, 0, "std::atomic", "__a_value", NULL, NULL,
	  L_ARG | L_ELEM | L_DEEP | L_LIBCXX, 0, 0 },
};

/* Offset @which of @row's at member @p of @t, into *@off: true when @p
 * is none or found. */
static bool member_at(const struct dw_type *t, const struct layout *row, const char *p, int64_t *off)
{
	if (!p)
		return true;
	return (row->flags & L_DEEP) ? deep(t, p, off, 0) != NULL : path(t, p, off) != NULL;
}

/* @t as @row lays it out: false when a member is missing. */
static bool by_row(const struct dw_type *t, const struct layout *row, struct dw_std *s)
{
	s->kind = row->kind;
	s->shape = row->shape;
	s->libcxx = (row->flags & L_LIBCXX) != 0;
	s->has_count = (row->flags & L_COUNT) != 0;
	s->c = row->cc ? row->cc : (row->flags & L_NO_C) ? -1 : 0;
	s->d = row->dd;
	if (row->flags & (L_ELEM | L_ARG))
		s->elem = targ(t, 0);
	s->weak = (row->flags & L_WEAK) ? "weak" : NULL;
	s->label = !(row->flags & L_ARG) ? row->label
		   : (row->flags & L_OWN) ? with_own_arg(row->label, s->elem) : with_arg(row->label, s->elem);
	if ((row->flags & L_ELEM) && !elem_ok(s))
		return false;
	return member_at(t, row, row->a, &s->a) && member_at(t, row, row->b, &s->b) &&
	       member_at(t, row, row->c, &s->c);
}

/* The row @t's name matches, as it lays @t out; false when none does or
 * its members are missing. */
static bool by_layout(const struct dw_type *t, const char *n, struct dw_std *s)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (!starts(n, layouts[i].prefix))
			continue;
		memset(s, 0, sizeof(*s));
		s->e = -1;
		if (by_row(t, &layouts[i], s))
			return true;
		if (!(layouts[i].flags & L_OR))
			return false;
	}
	return false;
}

/* std::variant's active alternative: its index at @index, the
 * alternatives' storage at @data (@look: path() or deep()). */
static bool variant(const struct dw_type *t, const char *index, const char *data, bool by_name, struct dw_std *s)
{
	const struct dw_type *idx = by_name ? deep(t, index, &s->b, 0) : path(t, index, &s->b);

	s->kind = DW_STD_VARIANT;
	s->label = with_args("std::variant", t);
	s->n_alts = t->n_targs < DW_STD_MAX_ALTS ? (unsigned)t->n_targs : DW_STD_MAX_ALTS;
	for (unsigned i = 0; i < s->n_alts; i++)
		s->alt[i] = t->targs[i];
	s->index_size = idx ? (unsigned)idx->size : 0;
	return idx && s->index_size <= 8 && (by_name ? deep(t, data, &s->a, 0) : path(t, data, &s->a)) != NULL;
}

/* ---- libstdc++ ---- */

/* Either library's std::deque: what it is and its element (false when
 * that has no size); its layout is the library's. */
static bool deque_of(const struct dw_type *t, struct dw_std *s)
{
	s->kind = DW_STD_DEQUE;
	s->shape = DW_SHAPE_COUNTED;
	s->label = "std::deque";
	s->elem = targ(t, 0);
	return elem_ok(s);
}

static bool gnu_deque(const struct dw_type *t, const char *n, struct dw_std *s)
{
	if (!starts(n, "std::deque<") || !deque_of(t, s))
		return false;
	s->d = (int64_t)(s->elem->size < 512 ? 512 / s->elem->size * s->elem->size : s->elem->size);
	return paths(t, "_M_impl._M_start", &s->a, "_M_impl._M_finish", &s->b);
}

static bool gnu_list(const struct dw_type *t, const char *n, struct dw_std *s)
{
	int64_t h;

	s->kind = DW_STD_LIST;
	s->shape = DW_SHAPE_INDEXED;
	s->elem = targ(t, 0);
	if (starts(n, "std::__cxx11::list<")) {
		s->label = "std::__cxx11::list";
		s->circular = true;
		if (!elem_ok(s) || !paths(t, "_M_impl._M_node", &h, "_M_impl._M_node._M_size", &s->e))
			return false;
		s->a = s->d = h;
		s->b = 0;
		s->c = 16;
	} else if (starts(n, "std::forward_list<")) {
		s->label = "std::forward_list";
		s->e = -1;
		if (!elem_ok(s) || !path(t, "_M_impl._M_head", &s->a))
			return false;
		s->b = 0;
		s->c = 8;
	} else {
		return false;
	}
	s->node_size = (uint64_t)s->c + s->elem->size;
	return true;
}

static const char *const tree_labels[] = { "std::map", "std::multimap", "std::set", "std::multiset" };
static const char *const hash_labels[] = { "std::unordered_map", "std::unordered_multimap", "std::unordered_set",
					   "std::unordered_multiset" };

/* Which of the four @labels' templates @n names in namespace @ns
 * ("std::", "std::__1::"): its index (the first two are maps), or -1. */
static int named(const char *n, const char *ns, const char *const labels[4])
{
	size_t k = strlen(ns);

	for (int i = 0; i < 4 && !strncmp(n, ns, k); i++) {
		const char *base = labels[i] + strlen("std::");
		size_t m = strlen(base);

		if (!strncmp(n + k, base, m) && n[k + m] == '<')
			return i;
	}
	return -1;
}

static bool gnu_tree(const struct dw_type *t, const char *n, struct dw_std *s)
{
	int i = named(n, "std::", tree_labels);
	const struct dw_type *tree;
	int64_t h, root;

	if (i < 0)
		return false;
	tree = path(t, "_M_t", &h);
	if (!tree || !paths(t, "_M_t._M_impl._M_header._M_parent", &root, "_M_t._M_impl._M_node_count", &s->e))
		return false;
	s->kind = DW_STD_TREE;
	s->shape = DW_SHAPE_COUNTED;
	s->label = tree_labels[i];
	s->pairs = i < 2;
	s->elem = targ(tree, 1);
	s->a = root;
	s->b = 16;
	s->c = 24;
	s->d = 32;
	if (!elem_ok(s))
		return false;
	s->node_size = 32 + s->elem->size;
	return true;
}

static bool gnu_hash(const struct dw_type *t, const char *n, struct dw_std *s)
{
	int i = named(n, "std::", hash_labels);
	const struct dw_type *h;
	int64_t off;

	if (i < 0)
		return false;
	h = path(t, "_M_h", &off);
	if (!h || !paths(t, "_M_h._M_before_begin._M_nxt", &s->a, "_M_h._M_element_count", &s->e))
		return false;
	s->kind = DW_STD_LIST;
	s->shape = DW_SHAPE_COUNTED;
	s->unordered = true;
	s->label = hash_labels[i];
	s->pairs = i < 2;
	s->elem = targ(h, 1);
	s->b = 0;
	s->c = 8;
	if (!elem_ok(s))
		return false;
	s->node_size = 8 + s->elem->size;
	return true;
}

/* std::tuple's elements: each _Tuple_impl<i, ...> holds element i in its
 * _Head_base<i, ...> base and the rest in its _Tuple_impl<i + 1, ...>. */
static void gnu_tuple(const struct dw_type *t, uint64_t at, struct dw_std *s, int depth)
{
	const struct dw_member *rest = NULL;

	for (size_t i = 0; depth < DW_STD_MAX_ALTS && i < t->n_members; i++) {
		const struct dw_member *mb = &t->members[i];
		const char *n = mb->type->tag_name;
		int64_t off;
		const struct dw_type *v;

		if (starts(n, "std::_Tuple_impl<"))
			rest = mb;
		else if (starts(n, "std::_Head_base<") && s->n_alts < DW_STD_MAX_ALTS &&
			 (v = path(mb->type, "_M_head_impl", &off))) {
			s->alt[s->n_alts] = v;
			s->alt_off[s->n_alts++] = at + mb->offset + (uint64_t)off;
		}
	}
	if (rest)
		gnu_tuple(rest->type, at + rest->offset, s, depth + 1);
}

static bool gnu_wrapper(const struct dw_type *t, const char *n, struct dw_std *s)
{
	if (starts(n, "std::variant<"))
		return variant(t, "_M_index", "_M_u", false, s);
	if (starts(n, "std::tuple<")) {
		s->kind = DW_STD_TUPLE;
		s->label = "std::tuple";
		gnu_tuple(t, 0, s, 0);
		return true;
	}
	return false;
}

/* The strings of wide characters and of char8_t (std::wstring,
 * std::u16string, std::u32string, std::u8string, their views), laid out
 * as the char ones with the character's size: gdb prints them L"...",
 * u"...", U"..." and a char8_t one as a char one, "...". */
static bool wide_string(const struct dw_type *t, const char *n, struct dw_std *s)
{
	static const char *const kinds[] = { "std::__cxx11::basic_string<", "std::basic_string_view<",
					     "std::__1::basic_string<", "std::__1::basic_string_view<" };
	const struct dw_type *c = targ(t, 0);
	size_t k = 0;
	int64_t r;

	while (k < 4 && !starts(n, kinds[k]))
		k++;
	if (k == 4 || !c || c->kind != DW_TYPE_INT || (!c->char_prefix && strcmp(c->name, "char8_t")) ||
	    (c->size != 1 && c->size != 2 && c->size != 4))
		return false;
	s->kind = DW_STD_STRING;
	s->char_size = (unsigned)c->size;
	s->char_prefix = c->size > 1 ? c->char_prefix : NULL;
	s->libcxx = k >= 2;
	if (k == 0)
		return paths(t, "_M_dataplus._M_p", &s->a, "_M_string_length", &s->b);
	if (k == 1)
		return paths(t, "_M_str", &s->a, "_M_len", &s->b);
	if (k == 3) {
		s->libcxx = false; /* a view: no short form */
		return paths(t, "__data_", &s->a, "__size_", &s->b);
	}
	if (!path(t, "__r_", &r))
		return false;
	s->a = r + 16;
	s->b = r + 8;
	return true;
}

/* ---- libc++ ---- */

static bool llvm_sequence(const struct dw_type *t, const char *n, struct dw_std *s)
{
	int64_t r;

	s->libcxx = true;
	if (starts(n, "std::__1::basic_string<char,")) {
		s->kind = DW_STD_STRING;
		if (!path(t, "__r_", &r))
			return false;
		s->a = r + 16;
		s->b = r + 8;
		return true;
	}
	if (starts(n, "std::__1::deque<")) {
		if (!deque_of(t, s))
			return false;
		s->d = (int64_t)((s->elem->size < 256 ? 4096 / s->elem->size : 16) * s->elem->size);
		return paths(t, "__map_.__begin_", &s->a, "__start_", &s->b) && path(t, "__size_", &s->c);
	}
	return false;
}

/* How @t is aligned, as the compilers lay it out on x86-64. */
static uint64_t align_of(const struct dw_type *t, int depth)
{
	uint64_t a = 1;

	if (depth > 12)
		return 8;
	if (t->kind == DW_TYPE_ARRAY && t->target)
		return align_of(t->target, depth + 1);
	if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION) {
		for (size_t i = 0; i < t->n_members; i++) {
			uint64_t m = align_of(t->members[i].type, depth + 1);

			a = m > a ? m : a;
		}
		return a;
	}
	while (a < t->size && a < 16)
		a *= 2;
	return a;
}

/* The value type of a libc++ map node (__value_type<K, V>'s pair __cc_)
 * or set node (K). */
static const struct dw_type *llvm_node_value(const struct dw_type *holder)
{
	const struct dw_type *v = targ(holder, 0), *cc;
	int64_t off;

	if (v && (starts(v->tag_name, "std::__1::__value_type<") || starts(v->tag_name, "std::__1::__hash_value_type<"))) {
		cc = path(v, "__cc_", &off);
		return cc && off == 0 ? cc : NULL;
	}
	return v;
}

static bool llvm_containers(const struct dw_type *t, const char *n, struct dw_std *s)
{
	int i = named(n, "std::__1::", tree_labels), j = named(n, "std::__1::", hash_labels);
	const struct dw_type *holder;
	int64_t off;

	s->libcxx = true;
	if (i >= 0 && (holder = path(t, "__tree_", &off))) {
		s->kind = DW_STD_TREE;
		s->label = tree_labels[i];
		s->b = 0, s->c = 8, s->d = 25; /* after the color, a bool */
		if (!paths(t, "__tree_.__pair1_", &s->a, "__tree_.__pair3_", &s->e))
			return false;
	} else if (j >= 0 && (holder = path(t, "__table_", &off))) {
		s->kind = DW_STD_LIST;
		s->unordered = true;
		s->label = hash_labels[j];
		s->b = 0, s->c = 16;
		if (!paths(t, "__table_.__p1_", &s->a, "__table_.__p2_", &s->e))
			return false;
	}
	if (s->kind != DW_STD_NONE) {
		s->shape = DW_SHAPE_COUNTED;
		s->pairs = (i >= 0 ? i : j) < 2;
		s->elem = llvm_node_value(holder);
		if (!elem_ok(s))
			return false;
		if (s->kind == DW_STD_TREE)
			s->d = (s->d + (int64_t)align_of(s->elem, 0) - 1) & -(int64_t)align_of(s->elem, 0);
		s->node_size = (uint64_t)(s->kind == DW_STD_TREE ? s->d : s->c) + s->elem->size;
		return true;
	}
	if (starts(n, "std::__1::list<")) {
		int64_t h;

		s->kind = DW_STD_LIST;
		s->shape = DW_SHAPE_INDEXED;
		s->label = "std::list";
		s->circular = true;
		s->elem = targ(t, 0);
		if (!elem_ok(s) || !paths(t, "__end_", &h, "__size_alloc_", &s->e))
			return false;
		s->a = h + 8, s->b = 8, s->c = 16, s->d = h;
		s->node_size = 16 + s->elem->size;
		return true;
	}
	if (starts(n, "std::__1::forward_list<")) {
		s->kind = DW_STD_LIST;
		s->shape = DW_SHAPE_INDEXED;
		s->label = "std::forward_list";
		s->elem = targ(t, 0);
		s->e = -1;
		if (!elem_ok(s) || !path(t, "__before_begin_", &s->a))
			return false;
		s->b = 0, s->c = 8;
		s->node_size = 8 + s->elem->size;
		return true;
	}
	return false;
}

static bool llvm_wrapper(const struct dw_type *t, const char *n, struct dw_std *s)
{
	s->libcxx = true;
	return starts(n, "std::__1::variant<") && variant(t, "__index", "__data", true, s);
}

/* ---- Rust's std (rustc 1.63 to 1.95) ---- */

static const struct dw_type *pointee(const struct dw_type *t)
{
	return t && t->kind == DW_TYPE_POINTER ? t->target : NULL;
}

/* A count at dotted @p of @t: a usize, or a newtype of one (rustc 1.76's
 * Cap, 1.84's niche_types::UsizeNoHighBit: its field __0). */
static bool rust_count(const struct dw_type *t, const char *p, int64_t *off)
{
	const struct dw_type *c = path(t, p, off);
	int64_t in;

	while (c && c->kind == DW_TYPE_STRUCT) {
		c = path(c, "__0", &in);
		*off += in;
	}
	return c && c->size == 8;
}

/* The buffer pointer and capacity of a RawVec<T> at @buf of @t, into
 * a and c: RawVec {ptr: Unique<T>, cap} up to rustc 1.79, RawVec {inner:
 * RawVecInner {ptr: Unique<u8>, cap}} after. */
static bool raw_vec(const struct dw_type *t, const char *buf, struct dw_std *s)
{
	static const char *const layouts[] = { "", ".inner" };
	char p[64];

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		snprintf(p, sizeof(p), "%s%s.ptr.pointer.pointer", buf, layouts[i]);
		if (!path(t, p, &s->a))
			continue;
		snprintf(p, sizeof(p), "%s%s.cap", buf, layouts[i]);
		return rust_count(t, p, &s->c);
	}
	return false;
}

/* Whether @n names @what (a name up to its '<': "alloc::boxed::Box<")
 * of str: "alloc::boxed::Box<str, alloc::alloc::Global>", "Rc<str>". */
static bool of_str(const char *n, const char *what)
{
	size_t k = strlen(what);

	return !strncmp(n, what, k) && !strncmp(n + k, "str", 3) && (n[k + 3] == ',' || n[k + 3] == '>');
}

/* String, OsString, &str, Box<str>; Vec<T>; &[T] and Box<[T]> (a data
 * pointer and a length). */
static bool rust_sequence(const struct dw_type *t, const char *n, struct dw_std *s)
{
	if (!strcmp(n, "alloc::string::String")) {
		s->kind = DW_STD_STRING;
		return raw_vec(t, "vec.buf", s) && path(t, "vec.len", &s->b);
	}
	if (!strcmp(n, "std::ffi::os_str::OsString")) { /* PathBuf's too: its bytes, as rust-gdb */
		s->kind = DW_STD_STRING;
		return raw_vec(t, "inner.inner.buf", s) && path(t, "inner.inner.len", &s->b);
	}
	if (!strcmp(n, "&str") || !strcmp(n, "&mut str") || of_str(n, "alloc::boxed::Box<")) {
		s->kind = DW_STD_STRING;
		return paths(t, "data_ptr", &s->a, "length", &s->b);
	}
	s->kind = DW_STD_VECTOR;
	s->shape = DW_SHAPE_RUST;
	s->has_count = true;
	if (starts(n, "alloc::vec::Vec<")) {
		s->label = "Vec";
		s->cap_count = true;
		s->elem = targ(t, 0);
		return elem_ok(s) && raw_vec(t, "buf", s) && path(t, "len", &s->b);
	}
	if (starts(n, "alloc::collections::vec_deque::VecDeque<")) {
		s->kind = DW_STD_RING;
		s->label = "VecDeque";
		s->elem = targ(t, 0);
		if (!elem_ok(s) || !raw_vec(t, "buf", s))
			return false;
		s->d = s->c;
		/* since rustc 1.67: the first element's index and a count */
		s->ring_len = path(t, "len", &s->c) != NULL;
		return s->ring_len ? path(t, "head", &s->b) != NULL : paths(t, "tail", &s->b, "head", &s->c);
	}
	if (starts(n, "&[") || starts(n, "&mut [") || starts(n, "alloc::boxed::Box<[")) {
		s->label = t->name;
		s->bracketed = starts(n, "alloc::boxed::Box<["); /* rust-gdb has no printer of it */
		s->c = -1;
		s->elem = pointee(path(t, "data_ptr", &s->a));
		return elem_ok(s) && path(t, "length", &s->b);
	}
	return false;
}

/* Rc<T>, Arc<T> and their Weak<T>: a pointer to RcBox {strong, weak,
 * value} or ArcInner {strong, weak, data} (RcInner since rustc 1.84).
 * Rc<str> and Arc<str> point with a data pointer and a length: the
 * text's length at f, its bytes at the block + b (DWARF gives the value
 * a u8 there). */
static bool rust_rc(const struct dw_type *t, const char *n, struct dw_std *s)
{
	bool weak = starts(n, "alloc::rc::Weak<") || starts(n, "alloc::sync::Weak<");
	bool arc = starts(n, "alloc::sync::");
	const struct dw_type *box, *ptr;
	int64_t in;

	if (!weak && !starts(n, "alloc::rc::Rc<") && !starts(n, "alloc::sync::Arc<"))
		return false;
	s->kind = DW_STD_RC;
	s->weak = weak ? "weak" : NULL;
	s->label = s->weak ? "Weak" : arc ? "Arc" : "Rc";
	ptr = path(t, "ptr.pointer", &s->a);
	if (ptr && ptr->kind == DW_TYPE_STRUCT) { /* a fat pointer: only str's is known */
		s->str_value = !weak && of_str(n, arc ? "alloc::sync::Arc<" : "alloc::rc::Rc<");
		if (!s->str_value || !path(ptr, "length", &s->f))
			return false;
		s->f += s->a;
		box = pointee(path(ptr, "data_ptr", &in));
		s->a += in;
	} else {
		box = pointee(ptr);
	}
	if (!box || !paths(box, "strong", &s->c, "weak", &s->d))
		return false;
	s->elem = path(box, arc ? "data" : "value", &s->b);
	if (!s->elem)
		return false;
	if (s->str_value)
		s->elem = NULL; /* a str: no value of its own to point to */
	s->node_size = box->size;
	return true;
}

/* Cell<T> {value: UnsafeCell<T> {value}}, RefCell<T> {borrow:
 * Cell<isize>, value: UnsafeCell<T>}. */
static bool rust_cell(const struct dw_type *t, const char *n, struct dw_std *s)
{
	bool ref = starts(n, "core::cell::RefCell<");

	if (!ref && !starts(n, "core::cell::Cell<"))
		return false;
	s->kind = DW_STD_CELL;
	s->label = ref ? "RefCell" : "Cell";
	s->b = -1;
	s->elem = path(t, "value.value", &s->a);
	return elem_ok(s) && (!ref || path(t, "borrow.value.value", &s->b));
}

/* HashMap<K, V> {base: hashbrown's HashMap {table: RawTable<(K, V)>
 * {table: RawTableInner {bucket_mask, ctrl, growth_left, items}}}};
 * HashSet<K> {base: hashbrown's HashSet {map: HashMap<K, ()>}}. */
/* Whether @n is a Rust map or set of @kind, @names its map's name
 * prefix and label, then its set's: 1 a map, 2 a set (kind, label and
 * pairs set in @s), 0 neither. */
static int keyed(const char *n, const char *const names[4], enum dw_std_kind kind, struct dw_std *s)
{
	int which = starts(n, names[0]) ? 1 : starts(n, names[2]) ? 2 : 0;

	if (which) {
		s->kind = kind;
		s->shape = DW_SHAPE_RUST;
		s->label = names[2 * which - 1];
		s->pairs = which == 1;
	}
	return which;
}

static bool rust_hash(const struct dw_type *t, const char *n, struct dw_std *s)
{
	static const char *const names[] = { "std::collections::hash::map::HashMap<", "HashMap",
					     "std::collections::hash::set::HashSet<", "HashSet" };
	int which = keyed(n, names, DW_STD_HASH, s);
	bool set = which == 2;
	const char *raw = set ? "base.map.table" : "base.table";
	const struct dw_type *table, *v;
	char p[64];
	int64_t off;

	if (!which)
		return false;
	table = path(t, raw, &off);
	s->elem = targ(table, 0);
	if (!table || !elem_ok(s) || !path(s->elem, "__0", &s->c))
		return false;
	v = path(s->elem, "__1", &s->d);
	if (set || !v)
		s->d = -1;
	snprintf(p, sizeof(p), "%s.table.ctrl.pointer", raw);
	if (!path(t, p, &s->a))
		return false;
	snprintf(p, sizeof(p), "%s.table.bucket_mask", raw);
	if (!path(t, p, &s->b))
		return false;
	snprintf(p, sizeof(p), "%s.table.items", raw);
	return path(t, p, &s->e) != NULL;
}

/* The Some variant of Option<T> @t at @off: its T's offset. */
static const struct dw_type *some_of(const struct dw_type *t, int64_t *off)
{
	for (size_t i = 0; t && i < t->n_variants; i++)
		if (t->variants[i].name && !strcmp(t->variants[i].name, "Some")) {
			int64_t in;
			const struct dw_type *v = path(t->variants[i].type, "__0", &in);

			*off += (int64_t)t->variants[i].offset + in;
			return v;
		}
	return NULL;
}

/* BTreeMap<K, V> {root: Option<NodeRef {height, node: NonNull<LeafNode
 * {keys, vals, len, ...}>}>, length}; BTreeSet<K> {map: BTreeMap<K,
 * SetValZST>}.  An internal node is its leaf part, then its child
 * pointers (InternalNode is repr(C)). */
static bool rust_btree(const struct dw_type *t, const char *n, struct dw_std *s)
{
	static const char *const names[] = { "alloc::collections::btree::map::BTreeMap<", "BTreeMap",
					     "alloc::collections::btree::set::BTreeSet<", "BTreeSet" };
	int which = keyed(n, names, DW_STD_BTREE, s);
	const struct dw_type *map = t, *root, *leaf;
	int64_t at = 0, node;

	if (!which || (which == 2 && !(map = path(t, "map", &at))))
		return false;
	if (!path(map, "length", &s->e) || !(root = path(map, "root", &s->a)))
		return false;
	s->e += at;
	s->a += at;
	root = some_of(root, &s->a);
	s->b = s->a;
	leaf = pointee(path(root, "node.pointer", &node));
	if (!leaf || !path(root, "height", &at) || !paths(leaf, "keys", &s->c, "vals", &s->d) ||
	    !path(leaf, "len", &s->f))
		return false;
	s->b += at;
	s->a += node;
	s->alt[0] = s->elem = targ(leaf, 0);
	s->alt[1] = targ(leaf, 1);
	s->node_size = leaf->size;
	s->g = (int64_t)((leaf->size + 7) & ~7ull);
	return elem_ok(s) && s->alt[1];
}

const struct dw_type *dw_std_nonzero(const struct dw_type *t, uint64_t *off)
{
	const struct dw_type *in = t;
	uint64_t o;

	*off = 0;
	if (!t || !t->rust || !starts(t->name, "core::num::nonzero::NonZero<"))
		return NULL;
	while (in->kind == DW_TYPE_STRUCT && in->n_members == 1 && dw_type_member(in, "__0", &o)) {
		in = in->members[0].type;
		*off += o;
	}
	return in->kind == DW_TYPE_INT ? in : NULL;
}

/* ---- iterators (either library's) ---- */

/* An iterator's element: at @off in the node, aligned as the node
 * aligns it. */
static int64_t aligned(int64_t off, const struct dw_type *elem)
{
	int64_t a = (int64_t)align_of(elem, 0);

	return (off + a - 1) & -a;
}

/* The iterators libstdc++'s printers show as the element they point at
 * (printers.py: StdRbtreeIteratorPrinter, StdVectorIteratorPrinter,
 * StdListIteratorPrinter, StdFwdListIteratorPrinter,
 * StdDequeIteratorPrinter, StdBitIteratorPrinter): the template, the
 * pointer's member, where a node holds the element (-1: the pointer
 * is the element's, the first argument a pointer to it), and what the
 * printer calls the container of one that points nowhere.  The
 * unordered containers' (_Node_iterator) have no printer: gdb shows
 * them raw, and so does wraith. */
static const struct iter_row {
	const char *prefix, *label, *ptr;
	int64_t node;
	const char *container;
} gnu_iters[] = {
	{ "std::_Rb_tree_iterator<", "std::_Rb_tree_iterator", "_M_node", 32, "associative container" },
	{ "std::_Rb_tree_const_iterator<", "std::_Rb_tree_const_iterator", "_M_node", 32, "associative container" },
	{ "__gnu_cxx::__normal_iterator<", "__gnu_cxx::__normal_iterator", "_M_current", -1, "std::vector" },
	{ "std::_List_iterator<", "std::_List_iterator", "_M_node", 16, "std::list" },
	{ "std::_List_const_iterator<", "std::_List_const_iterator", "_M_node", 16, "std::list" },
	{ "std::_Fwd_list_iterator<", "std::_Fwd_list_iterator", "_M_node", 8, "std::forward_list" },
	{ "std::_Fwd_list_const_iterator<", "std::_Fwd_list_const_iterator", "_M_node", 8, "std::forward_list" },
	{ "std::_Deque_iterator<", "std::_Deque_iterator", "_M_cur", 0, "std::deque" },
}, llvm_iters[] = {
	/* libc++'s, shown as libstdc++'s printers show their counterparts
	 * (its map iterators wrap a tree iterator in __i_) */
	{ "std::__1::__wrap_iter<", "std::__wrap_iter", "__i_", -1, "std::vector" },
	{ "std::__1::__tree_iterator<", "std::__tree_iterator", "__ptr_", 25, "associative container" },
	{ "std::__1::__tree_const_iterator<", "std::__tree_const_iterator", "__ptr_", 25, "associative container" },
	{ "std::__1::__map_iterator<", "std::__map_iterator", "__i_.__ptr_", 25, "associative container" },
	{ "std::__1::__map_const_iterator<", "std::__map_const_iterator", "__i_.__ptr_", 25, "associative container" },
	{ "std::__1::__list_iterator<", "std::__list_iterator", "__ptr_", 16, "std::list" },
	{ "std::__1::__list_const_iterator<", "std::__list_const_iterator", "__ptr_", 16, "std::list" },
	{ "std::__1::__forward_list_iterator<", "std::__forward_list_iterator", "__ptr_", 8, "std::forward_list" },
	{ "std::__1::__forward_list_const_iterator<", "std::__forward_list_const_iterator", "__ptr_", 8,
	  "std::forward_list" },
	{ "std::__1::__deque_iterator<", "std::__deque_iterator", "__ptr_", 0, "std::deque" },
};

/* The element type of libc++'s iterator @t of @row: a map iterator's is
 * its tree iterator's value's pair, a forward_list iterator's its node
 * pointer's value. */
static const struct dw_type *llvm_iter_elem(const struct dw_type *t, const struct iter_row *row)
{
	int64_t off;

	if (strstr(row->prefix, "__map_"))
		return llvm_node_value(path(t, "__i_", &off));
	if (strstr(row->prefix, "__tree_"))
		return llvm_node_value(t);
	if (strstr(row->prefix, "__forward_list_"))
		return targ(pointee(targ(t, 0)), 0);
	return targ(t, 0);
}

static bool iterator(const struct dw_type *t, const char *n, const struct iter_row *rows, size_t n_rows,
		     bool libcxx, struct dw_std *s)
{
	const struct iter_row *row = NULL;

	for (size_t i = 0; i < n_rows && !row; i++)
		if (starts(n, rows[i].prefix))
			row = &rows[i];
	if (!row || !path(t, row->ptr, &s->a))
		return false;
	s->kind = DW_STD_ITERATOR;
	s->label = row->label;
	s->container = row->container;
	s->libcxx = libcxx;
	s->elem = libcxx ? llvm_iter_elem(t, row) : targ(t, 0);
	if (row->node < 0)
		s->elem = pointee(s->elem);
	else if (!s->elem) /* GCC gave no template arguments */
		s->elem = pointee(t->pointer_typedef);
	if (!elem_ok(s))
		return false;
	s->b = row->node <= 0 ? 0 : aligned(row->node, s->elem);
	return true;
}

static bool gnu_iterator(const struct dw_type *t, const char *n, struct dw_std *s)
{
	if (!strcmp(n, "std::_Bit_iterator") || !strcmp(n, "std::_Bit_const_iterator")) {
		s->kind = DW_STD_ITERATOR;
		s->label = n;
		s->container = "std::vector<bool>";
		return deep(t, "_M_p", &s->a, 0) && deep(t, "_M_offset", &s->c, 0);
	}
	return iterator(t, n, gnu_iters, sizeof(gnu_iters) / sizeof(gnu_iters[0]), false, s);
}

static bool llvm_iterator(const struct dw_type *t, const char *n, struct dw_std *s)
{
	if (starts(n, "std::__1::__bit_iterator<")) {
		s->kind = DW_STD_ITERATOR;
		s->label = "std::__bit_iterator";
		s->container = "std::vector<bool>";
		s->libcxx = true;
		return path(t, "__seg_", &s->a) && path(t, "__ctz_", &s->c);
	}
	return iterator(t, n, llvm_iters, sizeof(llvm_iters) / sizeof(llvm_iters[0]), true, s);
}

typedef bool recognizer(const struct dw_type *t, const char *n, struct dw_std *s);

/* The first of @fns that recognises @t (named @n), into *@s. */
static bool first_of(recognizer *const *fns, size_t n_fns, const struct dw_type *t, const char *n,
		     struct dw_std *s)
{
	for (size_t i = 0; i < n_fns; i++) {
		memset(s, 0, sizeof(*s));
		s->e = -1;
		if (fns[i](t, n, s))
			return s->kind != DW_STD_NONE;
	}
	return false;
}

bool dw_std_recognize(const struct dw_type *t, struct dw_std *out)
{
	static recognizer *const rust[] = { rust_sequence, rust_rc, rust_cell, rust_hash, rust_btree };
	static recognizer *const gnu[] = { wide_string, by_layout, gnu_deque, gnu_list, gnu_tree, gnu_hash, gnu_wrapper,
					    gnu_iterator };
	static recognizer *const llvm[] = { wide_string, by_layout, llvm_sequence, llvm_containers, llvm_wrapper,
					     llvm_iterator };
	const char *n = t ? t->tag_name : NULL;
	struct dw_std s;
	bool ok;

	if (!n || t->kind != DW_TYPE_STRUCT || t->incomplete)
		return false;
	if (t->rust)
		ok = first_of(rust, sizeof(rust) / sizeof(rust[0]), t, n, &s);
	else if (!strncmp(n, "std::__1::", 10))
		ok = first_of(llvm, sizeof(llvm) / sizeof(llvm[0]), t, n, &s);
	else
		ok = (!strncmp(n, "std::", 5) || starts(n, "__gnu_cxx::__normal_iterator<")) &&
		     first_of(gnu, sizeof(gnu) / sizeof(gnu[0]), t, n, &s);
	if (ok && s.kind == DW_STD_STRING && !s.char_size)
		s.char_size = 1;
	if (ok && s.kind == DW_STD_STRING)
		s.c_text = !t->rust;
	if (ok)
		*out = s;
	return ok;
}

bool dw_std_walkable(const struct dw_type *t, int depth)
{
	struct dw_std s;

	if (!t || depth > 8)
		return false;
	if (dw_std_recognize(t, &s)) {
		switch (s.kind) {
		case DW_STD_UNIQUE_PTR:
		case DW_STD_ATOMIC:
			return false;
		case DW_STD_OPTIONAL:
			return dw_std_walkable(s.elem, depth + 1);
		case DW_STD_VARIANT:
		case DW_STD_TUPLE:
			for (unsigned i = 0; i < s.n_alts; i++)
				if (dw_std_walkable(s.alt[i], depth + 1))
					return true;
			return false;
		default:
			return true;
		}
	}
	if (t->kind == DW_TYPE_ARRAY)
		return t->count && dw_std_walkable(t->target, depth + 1);
	for (size_t i = 0; i < t->n_variants; i++) /* a Rust enum's */
		if (dw_std_walkable(t->variants[i].type, depth + 1))
			return true;
	if (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION)
		return false;
	for (size_t i = 0; t->kind == DW_TYPE_STRUCT && i < t->n_members; i++)
		if (!t->members[i].bit_size && dw_std_walkable(t->members[i].type, depth + 1))
			return true;
	return false;
}
