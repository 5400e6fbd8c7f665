/* ctype.h - C's types for the values of a script: the types of literals,
 * special variables and operator results, and C's rules over them (the
 * integer promotions and the usual arithmetic conversions).
 *
 * Layer rule: private to src/codegen; pure (no LLVM).  Types are the
 * plain struct dw_type of dwarf/types.h (through plan.h), so a script's own values and the
 * program's values are one kind of thing.  The builtin types below are
 * static: the renderer may borrow them for as long as it likes, as it
 * borrows the module's types.
 *
 * A boolean made by the script (a comparison, !, && and ||, true/false,
 * strncmp...) has type ctype_bool, which is distinct from the program's
 * own _Bool types: C lets `flag == 0` compare a _Bool with an int, but
 * `strncmp(a, "x", 1) == 0` in a script is a mistake to report.
 */
#ifndef WRAITH_CODEGEN_CTYPE_H
#define WRAITH_CODEGEN_CTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "codegen/plan.h"

extern const struct dw_type ctype_bool;      /* a boolean of the script */
extern const struct dw_type ctype_int;       /* int, unsigned int, long, unsigned long */
extern const struct dw_type ctype_uint;
extern const struct dw_type ctype_long;
extern const struct dw_type ctype_ulong;
extern const struct dw_type ctype_float;
extern const struct dw_type ctype_double;
extern const struct dw_type ctype_void;
extern const struct dw_type ctype_void_ptr;  /* $sp */
extern const struct dw_type ctype_code_ptr;  /* $pc: void (*)() */
extern const struct dw_type ctype_code_ptr_cxx; /* $pc in C++: void (*)(void) */

/* Integer types: int and char of every width, _Bool, enums. */
bool ctype_is_integer(const struct dw_type *t);
/* Integers and floating types. */
bool ctype_is_arith(const struct dw_type *t);
/* Arithmetic types and pointers: what a condition may test. */
bool ctype_is_scalar(const struct dw_type *t);
/* A pointer whose target is a character type: printed as a string. */
bool ctype_is_text_pointer(const struct dw_type *t);
/* A pointer to wide characters (wchar_t, char16_t, char32_t: types.h
 * char_prefix), shown with the string it points to as gdb shows it. */
bool ctype_is_wide_text_pointer(const struct dw_type *t);

/* The builtin integer type of @bits (32 or 64) and signedness. */
const struct dw_type *ctype_integer(unsigned bits, bool is_signed);
/* Width in bits of integer type @t as stored (a bitfield: @bit_size
 * when non-zero). */
unsigned ctype_bits(const struct dw_type *t, unsigned bit_size);
/* C's integer promotion of integer type @t (a bitfield of @bit_size bits
 * when non-zero): int for everything narrower than int (and for bitfields
 * up to 31 bits), the builtin type of the same width otherwise. */
const struct dw_type *ctype_promote(const struct dw_type *t, unsigned bit_size);
/* The usual arithmetic conversions of two promoted integer types. */
const struct dw_type *ctype_common(const struct dw_type *a, const struct dw_type *b);
/* Element size for pointer arithmetic on @ptr (a pointer): void and
 * function targets count bytes, as GCC does. */
unsigned long long ctype_stride(const struct dw_type *ptr);
/* True when pointers to @a and to @b may be subtracted or compared. */
bool ctype_compatible(const struct dw_type *a, const struct dw_type *b);

/* How @t reads in an error message: "a pointer (char *)", "a struct
 * (struct point)", "an integer (unsigned int)", "a boolean".  Written
 * into @buf (@size bytes), which is returned. */
const char *ctype_describe(const struct dw_type *t, char *buf, size_t size);

#endif
