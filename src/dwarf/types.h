/* types.h - the traced program's types, as DWARF describes them: struct
 * dw_type (kinds, members, enumerators, Rust variants, C++ template
 * arguments), built by types.c, and types found or made by name for
 * cast().
 *
 * Layer rule: dwarf/ depends on util/ only; elfutils stays inside dwarf/.
 * This header uses plain types so the IR generator and the renderer can
 * read types without seeing libdw.
 *
 * Types are built once per DIE and cached in the module: every struct
 * dw_type pointer is borrowed and valid until dw_module_free() (or, for a
 * type completed from another module, until that module is freed).
 */
#ifndef WRAITH_DWARF_TYPES_H
#define WRAITH_DWARF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

enum dw_type_kind {
	DW_TYPE_VOID,
	DW_TYPE_INT,      /* integers, char, enum underlying */
	DW_TYPE_BOOL,
	DW_TYPE_FLOAT,
	DW_TYPE_COMPLEX,  /* C's _Complex: real then imaginary, each a float of half the size */
	DW_TYPE_DECIMAL,  /* _Decimal32/64/128: IEEE 754 decimal, BID encoding on x86-64 */
	DW_TYPE_POINTER,  /* also references and pointers to members (see dw_type) */
	DW_TYPE_STRUCT,   /* struct and class */
	DW_TYPE_UNION,
	DW_TYPE_ARRAY,
	DW_TYPE_ENUM,
	DW_TYPE_FUNCTION,
	DW_TYPE_UNKNOWN,
};

struct dw_type;

struct dw_member {
	const char *name;          /* NULL for an anonymous member */
	uint64_t offset;           /* bytes from the start of the aggregate */
	const struct dw_type *type;
	unsigned bit_size;         /* 0 unless a bitfield */
	unsigned bit_offset;       /* from the least significant bit of the storage unit */
	/* A C++ virtual base class (DW_AT_virtuality): .offset means nothing,
	 * the base's place in each object is read from its vtable, as the
	 * Itanium ABI lays it out: the int64 .vbase_slot bytes below the
	 * address held by the aggregate's first 8 bytes (its vptr).
	 * .vbase_slot is 0 when the DWARF says it some other way. */
	bool is_virtual;
	uint32_t vbase_slot;
};

/* A C++ class's static data member, which gdb shows among the members
 * (`static count = 3`): not in the object's bytes but a variable of its
 * own, found by its qualified name as gdb finds it. */
struct dw_static {
	const char *name;          /* "count" */
	const char *qname;         /* "S::count", "ns::S::In::z" */
	const struct dw_type *type;
	size_t before;             /* how many of the struct's members come before it */
	/* A constant the compiler folded (DW_AT_const_value, `static const
	 * int K = 7`, constexpr): its bytes, as the variable would hold them. */
	bool has_const;
	uint8_t cval[16];
	size_t const_len;          /* a block's bytes (0: a number, .cval holds 8) */
};

/* The tag a copy of static member @st's value is found by in an event
 * (wire.h: WR_MEM_F_STATIC): its qualified name hashed, bit 63 set. */
static inline uint64_t dw_static_tag(const struct dw_static *st)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *c = st->qname; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return h | 1ull << 63;
}

struct dw_enumerator {
	const char *name;
	int64_t value;
	/* Its name as a symbol of the scope the enum is declared in, as gdb
	 * names it: "green", or "Color::green" for an enum class's. */
	const char *symbol;
};

/* One variant of a Rust enum with data (a DWARF variant part): its
 * fields are the members of .type, a struct placed at .offset in the
 * enum's bytes (their offsets count from the enum's start). */
struct dw_variant {
	const char *name;          /* "Some", "Rect" */
	const struct dw_type *type;
	uint64_t offset;
	bool is_default;           /* taken when no other variant's value matches (the
				      variant whose data holds the niche) */
	uint64_t value;            /* the discriminant's value that selects it */
};

struct dw_type {
	enum dw_type_kind kind;
	const char *name;          /* C spelling as gdb prints it: "int", "long", "struct request",
				    * "const char *", "int (*)[4]" */
	uint64_t size;             /* bytes (0 when unknown or void) */
	bool is_signed;
	bool is_char;              /* char, signed char, unsigned char (and arrays of them read as text) */
	/* A wide character gdb shows as text, its number then its literal
	 * (90 L'Z'), an array or pointer of them as a string (L"abc"): the
	 * literal's prefix, "L" for wchar_t, "u" for char16_t, "U" for
	 * char32_t (a C++ base type, or in C a typedef of that name); NULL
	 * for any other type. */
	const char *char_prefix;
	const struct dw_type *target; /* pointee or array element */
	uint64_t count;            /* array elements (0: unknown) */
	/* A C variable-length array (DW_TYPE_ARRAY): this dimension's length
	 * is not a constant but computed at run time (a bound DWARF gives as
	 * an expression or a variable), so .count and .size are 0; .bound
	 * keys the DW_TAG_subrange_type that says how to find it
	 * (dw_type_vla_bound()).  Named as gdb names it, "int [variable
	 * length]". */
	bool dynamic;
	uint64_t bound;
	const struct dw_member *members; /* struct/union */
	size_t n_members;
	const struct dw_static *statics; /* C++ static data members, in their order */
	size_t n_statics;
	const struct dw_enumerator *enumerators;
	size_t n_enumerators;
	bool incomplete;           /* a struct/union/enum only declared, defined by no module
				      known (no members, size 0) */
	/* C++ (DW_TYPE_POINTER): a reference, & or && ("int &"): its value is
	 * the referent's address, and in expressions it stands for the
	 * referent, as in C++. */
	bool is_reference;
	/* C++ (DW_TYPE_POINTER): a pointer to a member of class .container
	 * ("int Point::*": its value is the member's offset; a pointer to a
	 * member function, 16 bytes: the function's address, then the
	 * adjustment of `this`). */
	const struct dw_type *container;
	bool scoped;               /* an enum class: gdb names its values Color::green */
	/* C++ (DW_TYPE_ENUM, not an enum class): the scopes the enum is
	 * declared in, "Plan::", "ns::", "(anonymous namespace)::", which
	 * gdb puts before its values' names, as C++ names them from outside:
	 * Plan::kEdgeSucceeded; "" at file scope and in C. */
	const char *enum_scope;
	/* From a Rust unit: named ("*mut T", "[u8; 4]") and shown
	 * ("rscopes::Req {id: 1}") as rust-gdb does. */
	bool rust;
	/* A Rust enum with data (DW_TYPE_STRUCT): which variant the value
	 * holds is told by the discriminant, an unsigned integer of
	 * .discr_size bytes at .discr_offset (for a niche layout, bytes of
	 * the data of the default variant). */
	const struct dw_variant *variants;
	size_t n_variants;
	uint64_t discr_offset;
	unsigned discr_size;
	/* C++ struct, class or union: its own name, kept through the
	 * typedefs and qualifiers that rename it ("std::string" and "const
	 * std::string" are both "std::__cxx11::basic_string<char, ...>"),
	 * and its template type arguments, packs flattened (NULL, 0: none). */
	const char *tag_name;
	const struct dw_type *const *targs;
	size_t n_targs;
	/* C++ class template instance whose DWARF gives no template
	 * arguments (GCC leaves them out of std::_List_iterator<int>): the
	 * type its nested typedef `pointer` names (an iterator's `int *`),
	 * NULL when it has none. */
	const struct dw_type *pointer_typedef;
};

/* C's arithmetic types and void as x86-64 lays them out, by the names
 * gdb gives them ("unsigned long", "long double", "_Bool", "bool") or
 * the short ones of kernel code (u8 ... u64, i8 ... i64): static, so
 * that a cast to one needs no debug info.  NULL for any other name. */
const struct dw_type *dw_type_builtin(const char *name);

/* The type module @m itself defines as @name: a struct, union, enum or
 * class spelled with its keyword ("struct node"; C++ names it without),
 * or a typedef, base type or C++ class by its name ("uint32_t").  Only
 * a definition counts (a type @m merely declares is NULL); NULL too
 * without debug info. */
const struct dw_type *dw_type_named(struct dw_module *m, const char *name);

/* A type made for a cast and kept in @m's cache: a pointer to @target
 * (@kind DW_TYPE_POINTER), an array of @count @target
 * (DW_TYPE_ARRAY), or a function returning @target
 * (DW_TYPE_FUNCTION, its parameters in its name only); named @name
 * (copied). */
const struct dw_type *dw_type_derived(struct dw_module *m, enum dw_type_kind kind,
				      const struct dw_type *target, uint64_t count, const char *name);
/* @t under the name @name (copied), kept in @m's cache: a qualified
 * type, "const volatile struct node". */
const struct dw_type *dw_type_renamed(struct dw_module *m, const struct dw_type *t, const char *name);

/* Are @a and @b the same type: kind, size, signedness, name, and member
 * by member (names, offsets, bitfields, types), enumerator by enumerator,
 * element by element?  What pointers point to compares by name.  Two
 * modules' definitions of one type name compare so. */
bool dw_type_same(const struct dw_type *a, const struct dw_type *b);

/* The complete definition of aggregate @spelling ("struct lua_State",
 * "union u", "enum e") in @m itself, or NULL. */
const struct dw_type *dw_type_find_complete(struct dw_module *m, const char *spelling);

/* How a module completes a type it only declares when it has no
 * definition of its own: @fn looks in other modules (of the same process)
 * and returns a complete type, or NULL.  It must not call back into
 * @asking.  Set once, before any type is built. */
typedef const struct dw_type *(*dw_type_resolver)(void *ctx, struct dw_module *asking,
						  const char *spelling);
void dw_module_set_type_resolver(struct dw_module *m, dw_type_resolver fn, void *ctx);

/* The type "pointer to @target", made once per target and cached in @m
 * (valid until dw_module_free()).  @target must be a type of @m or a
 * static one.  Named as C spells it: "int *", "int (*)[4]". */
const struct dw_type *dw_type_pointer(struct dw_module *m, const struct dw_type *target);

/* The variant Rust enum @t holds in its bytes @data (@len of them), or NULL
 * when the discriminant is not within them or selects none. */
const struct dw_variant *dw_type_variant(const struct dw_type *t, const uint8_t *data, size_t len);

/* Whether @t is a Rust tuple or tuple struct: its members are __0, __1... */
bool dw_type_is_tuple(const struct dw_type *t);

/* Whether @t is a C or C++ array of no elements: a flexible array member
 * (`char buf[]`, GNU's `char buf[0]`), which gdb shows as its address (a
 * char array also with the string there), not as an empty array. */
bool dw_type_is_flexible(const struct dw_type *t);

/* Whether @t is an array with a dimension whose length is known only at
 * run time (a C VLA: .dynamic here or in an array it is made of): its
 * size is not @t->size. */
bool dw_type_is_vla(const struct dw_type *t);

/* VLA @t with the lengths of its @n dimensions of variable length
 * (outermost first, dw_var.vla_len's values) filled in: an array of
 * constant lengths, named as gdb names it at the pc ("int [5][3]").
 * Made once per lengths and kept in @m's cache; NULL when @n does not
 * match @t, or when the cache holds too many of them already. */
const struct dw_type *dw_type_vla_sized(struct dw_module *m, const struct dw_type *t, const uint64_t *counts,
					size_t n);

/* The member @name of struct/union @t (looking into anonymous members and
 * base classes, not virtual ones, whose place varies), or NULL.  *offset
 * receives its offset from the start of @t. */
const struct dw_member *dw_type_member(const struct dw_type *t, const char *name, uint64_t *offset);

/* The member @name of struct/union @t, virtual base classes included, with
 * the way to it: @path[0..*n) the anonymous members and base classes it
 * lies in, outermost first (at most @max; NULL when deeper). */
const struct dw_member *dw_type_member_path(const struct dw_type *t, const char *name,
					    const struct dw_member **path, size_t *n, size_t max);

/* Typedefs and const/volatile types are stored as copies of the type
 * underneath that only differ in name ("uint32_t", "const char"), so
 * nothing needs stripping.  True for types whose value is an integer in
 * the script (int, bool, enum, char, pointer). */
bool dw_type_is_scalar(const struct dw_type *t);

#endif
