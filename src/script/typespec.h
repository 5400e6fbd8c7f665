/* typespec.h - a C type name as cast() writes it, parsed: the named base
 * type, its qualifiers, and the declarators around it.
 *
 * Layer rule: script/ is pure (util/ only).  The parser reads a cast's
 * second argument with typespec_parse() and keeps the result in the
 * AST; tracer/ resolves the base type against the program's debug info
 * and builds the rest (pointers, arrays, functions) on it.
 *
 * What is accepted is C's type-name grammar: type specifiers and
 * qualifiers in any order ("const volatile struct node", "unsigned long
 * const", "long long int"), struct, union, enum and C++ class tags, a
 * typedef or C++ class name (with scopes and template arguments:
 * "std::vector<int>"), and an abstract declarator of pointers (with
 * their own qualifiers), arrays of a known bound and function
 * parameter lists, grouped with parentheses: "int (*)[4]",
 * "char * const *", "void (*)(int, char *)".  In front may stand the
 * module the type comes from, before a single colon:
 * "libfoo.so:struct node *".
 *
 * Ownership: a struct typespec owns everything reachable from it; free
 * it with typespec_free().
 */
#ifndef WRAITH_SCRIPT_TYPESPEC_H
#define WRAITH_SCRIPT_TYPESPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

struct strbuf;

enum typespec_base {
	TYPESPEC_BUILTIN, /* void or a C arithmetic type: .name as gdb spells it
			     ("unsigned long", "long double", "_Bool", "bool") */
	TYPESPEC_TAGGED,  /* .name "struct node", "union u", "enum e", "class k" */
	TYPESPEC_NAMED,   /* a typedef or a C++ class: .name "uint32_t", "ns::Klass<int>" */
};

/* Qualifier bits. */
#define TYPESPEC_CONST    0x1u
#define TYPESPEC_VOLATILE 0x2u
#define TYPESPEC_RESTRICT 0x4u
#define TYPESPEC_ATOMIC   0x8u

enum typespec_op_kind {
	TYPESPEC_POINTER,  /* .quals: of the pointer itself ("* const") */
	TYPESPEC_ARRAY,    /* .count elements, at least 1 */
	TYPESPEC_FUNCTION, /* .params, .n_params, .variadic, .unprototyped */
};

struct typespec;

struct typespec_op {
	enum typespec_op_kind kind;
	unsigned quals;
	uint64_t count;
	struct typespec **params; /* owned array of owned */
	size_t n_params;
	bool variadic;            /* "(int, ...)" */
	bool unprototyped;        /* "()": (void) has no parameters and is prototyped */
};

struct typespec {
	char *module;             /* owned: the module before ':', or NULL */
	size_t module_at, module_len; /* where it is, in bytes of the text */
	enum typespec_base base;
	char *name;               /* owned: the base type's canonical name */
	size_t name_at, name_len; /* where the base type is named in the text */
	unsigned quals;           /* of the base type: TYPESPEC_* bits */
	/* Applied to the base in order: "int *[4]" is POINTER then ARRAY (an
	 * array of pointers), "int (*)[4]" ARRAY then POINTER. */
	struct typespec_op *ops;  /* owned */
	size_t n_ops;
	/* Where the module and the base type are in the script, for errors
	 * found later (no such type, an ambiguous one); set by the script
	 * parser, line 0 when unknown. */
	struct src_loc module_loc, name_loc;
};

/* Why a text is not a type name: bytes [at, at + len) of the text (len
 * at least 1; at may be the text's length: its end), what is wrong, and
 * a hint (static text, may be NULL). */
struct typespec_error {
	size_t at, len;
	char msg[160];
	const char *hint;
};

/* Parse @len bytes of @text into *@out (caller frees with
 * typespec_free()).  Returns 0, or -WR_ESYNTAX with *@err filled and
 * *@out NULL. */
int typespec_parse(const char *text, size_t len, struct typespec **out, struct typespec_error *err);

/* NULL is a no-op. */
void typespec_free(struct typespec *ts);

/* Append the C spelling of @ts with only its first @n_ops operations
 * applied, the base named @base (NULL: ts->name), as gdb spells types:
 * "const volatile struct node *", "uint32_t [4]", "int (*)[4]",
 * "char * const *", "void (*)(int, char *)".  The module is left out. */
void typespec_spell(const struct typespec *ts, const char *base, size_t n_ops, struct strbuf *out);

#endif
