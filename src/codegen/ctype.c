/* ctype.c - C's types and conversions for script values (see ctype.h).
 *
 * x86-64 only: int is 32 bits, long and pointers 64.  long long has the
 * width of long, and a value's type only shows in how it prints, so the
 * conversions never need to tell them apart: 64-bit results are called
 * long or unsigned long.
 */
#include "codegen/ctype.h"

#include <stdio.h>
#include <string.h>

const struct dw_type ctype_bool = { .kind = DW_TYPE_BOOL, .name = "bool", .size = 1 };
const struct dw_type ctype_int = { .kind = DW_TYPE_INT, .name = "int", .size = 4, .is_signed = true };
const struct dw_type ctype_uint = { .kind = DW_TYPE_INT, .name = "unsigned int", .size = 4 };
const struct dw_type ctype_long = { .kind = DW_TYPE_INT, .name = "long", .size = 8, .is_signed = true };
const struct dw_type ctype_ulong = { .kind = DW_TYPE_INT, .name = "unsigned long", .size = 8 };
const struct dw_type ctype_float = { .kind = DW_TYPE_FLOAT, .name = "float", .size = 4 };
const struct dw_type ctype_double = { .kind = DW_TYPE_FLOAT, .name = "double", .size = 8 };
const struct dw_type ctype_void = { .kind = DW_TYPE_VOID, .name = "void" };
const struct dw_type ctype_void_ptr = { .kind = DW_TYPE_POINTER, .name = "void *", .size = 8,
					.target = &ctype_void };
static const struct dw_type code = { .kind = DW_TYPE_FUNCTION, .name = "void ()" };
const struct dw_type ctype_code_ptr = { .kind = DW_TYPE_POINTER, .name = "void (*)()", .size = 8,
					.target = &code };
static const struct dw_type code_cxx = { .kind = DW_TYPE_FUNCTION, .name = "void (void)" };
const struct dw_type ctype_code_ptr_cxx = { .kind = DW_TYPE_POINTER, .name = "void (*)(void)", .size = 8,
					    .target = &code_cxx };

bool ctype_is_integer(const struct dw_type *t)
{
	return t->kind == DW_TYPE_INT || t->kind == DW_TYPE_BOOL || t->kind == DW_TYPE_ENUM;
}

bool ctype_is_arith(const struct dw_type *t)
{
	return ctype_is_integer(t) || t->kind == DW_TYPE_FLOAT;
}

bool ctype_is_scalar(const struct dw_type *t)
{
	return ctype_is_arith(t) || t->kind == DW_TYPE_POINTER;
}

bool ctype_is_text_pointer(const struct dw_type *t)
{
	return t->kind == DW_TYPE_POINTER && t->target && t->target->is_char && t->target->size == 1 &&
	       t->target->kind == DW_TYPE_INT;
}

bool ctype_is_wide_text_pointer(const struct dw_type *t)
{
	return t->kind == DW_TYPE_POINTER && !t->is_reference && !t->container && t->target &&
	       t->target->char_prefix && t->target->kind == DW_TYPE_INT;
}

const struct dw_type *ctype_integer(unsigned bits, bool is_signed)
{
	if (bits > 32)
		return is_signed ? &ctype_long : &ctype_ulong;
	return is_signed ? &ctype_int : &ctype_uint;
}

unsigned ctype_bits(const struct dw_type *t, unsigned bit_size)
{
	if (bit_size)
		return bit_size;
	if (t->kind == DW_TYPE_BOOL)
		return 1;
	return t->size && t->size < 8 ? (unsigned)t->size * 8 : 64;
}

/* Every value of a type narrower than int, and of a bitfield up to 31
 * bits, fits in int, so those promote to int; wider ones keep their
 * width (an unsigned 32-bit bitfield stays unsigned int). */
const struct dw_type *ctype_promote(const struct dw_type *t, unsigned bit_size)
{
	unsigned bits = ctype_bits(t, bit_size);

	if (t->kind == DW_TYPE_BOOL || bits < 32)
		return &ctype_int;
	return ctype_integer(bits, t->is_signed);
}

const struct dw_type *ctype_common(const struct dw_type *a, const struct dw_type *b)
{
	unsigned bits = a->size > b->size ? (unsigned)a->size * 8 : (unsigned)b->size * 8;
	const struct dw_type *s = a->is_signed ? a : b, *u = a->is_signed ? b : a;

	if (a->is_signed == b->is_signed)
		return ctype_integer(bits, a->is_signed);
	/* Mixed: the signed type wins only when it holds every value of the
	 * unsigned one (long with unsigned int). */
	return ctype_integer(bits, s->size > u->size);
}

unsigned long long ctype_stride(const struct dw_type *ptr)
{
	const struct dw_type *t = ptr->target;

	return t && t->size && t->kind != DW_TYPE_FUNCTION ? t->size : 1;
}

/* Types are stored without qualifiers and typedefs are copies, so two
 * spellings of one type are compared by what they are. */
bool ctype_compatible(const struct dw_type *a, const struct dw_type *b)
{
	if (a == b || a->kind == DW_TYPE_VOID || b->kind == DW_TYPE_VOID)
		return true;
	if (a->kind != b->kind || a->size != b->size)
		return false;
	if (a->kind == DW_TYPE_POINTER || a->kind == DW_TYPE_ARRAY)
		return ctype_compatible(a->target, b->target);
	if (a->kind == DW_TYPE_STRUCT || a->kind == DW_TYPE_UNION || a->kind == DW_TYPE_ENUM)
		return a->n_members == b->n_members && a->n_enumerators == b->n_enumerators;
	return a->is_signed == b->is_signed;
}

const char *ctype_describe(const struct dw_type *t, char *buf, size_t size)
{
	const char *what;

	switch (t->kind) {
	case DW_TYPE_BOOL: what = t == &ctype_bool ? NULL : "a boolean"; break;
	case DW_TYPE_INT: what = t->is_char && t->size == 1 ? "a character" : "an integer"; break;
	case DW_TYPE_ENUM: what = "an enum"; break;
	case DW_TYPE_FLOAT: what = "a floating-point value"; break;
	case DW_TYPE_COMPLEX: what = "a complex number"; break;
	case DW_TYPE_DECIMAL: what = "a decimal floating-point value"; break;
	case DW_TYPE_POINTER: what = "a pointer"; break;
	case DW_TYPE_STRUCT: what = "a struct"; break;
	case DW_TYPE_UNION: what = "a union"; break;
	case DW_TYPE_ARRAY: what = "an array"; break;
	case DW_TYPE_FUNCTION: what = "a function"; break;
	case DW_TYPE_VOID: what = "void"; break;
	default: what = "a value of unknown type"; break;
	}
	if (!what)
		snprintf(buf, size, "a boolean");
	else
		snprintf(buf, size, "%s (%s)", what, t->name);
	return buf;
}
