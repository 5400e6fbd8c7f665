/* float.c - a floating-point value's text as gdb prints it, from its
 * bytes and its DWARF base type: IEEE half (_Float16, Rust's f16),
 * bfloat16 (__bf16), float, double, x87's 80-bit extended (long double,
 * _Float64x) and IEEE quad (__float128, _Float128, Rust's f128).
 *
 * gdb prints `%g` with the digits that read back as the same value
 * (floor(mantissa bits * log10 2) + 2: 5, 4, 9, 17, 21, 36), NaN with its
 * sign and mantissa in hex, and an x87 pattern the FPU refuses (an
 * unnormal: integer bit clear under a non-zero exponent) as
 * `<invalid float value>`.  The host's long double holds every format but
 * the quad exactly, so printf writes those; a quad's digits come from its
 * exact decimal expansion, rounded half to even as printf rounds.
 */
#include "dwarf/types.h"
#include "render/render_priv.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct float_format {
	unsigned exp_bits, mant_bits; /* mant_bits: the stored ones (x87: with its integer bit) */
	int digits;                   /* gdb's %g precision */
	bool explicit_int;            /* x87: the integer bit is stored */
};

static const struct float_format half = { 5, 10, 5, false }, bfloat = { 8, 7, 4, false },
				 single = { 8, 23, 9, false }, dbl = { 11, 52, 17, false },
				 x87 = { 15, 64, 21, true }, quad = { 15, 112, 36, false };

/* The format of float type @t, NULL when none is known for its size. */
static const struct float_format *format_of(const struct dw_type *t)
{
	const char *n = t->name ? t->name : "";

	switch (t->size) {
	case 2:
		return strstr(n, "bf16") ? &bfloat : &half;
	case 4:
		return &single;
	case 8:
		return &dbl;
	case 10:
	case 12:
		return &x87;
	case 16:
		return strstr(n, "128") ? &quad : &x87;
	default:
		return NULL;
	}
}

static unsigned __int128 bits_of(const uint8_t *data, size_t size)
{
	unsigned __int128 v = 0;

	memcpy(&v, data, size > 16 ? 16 : size);
	return v;
}

/* gdb's hex of a NaN's mantissa (floatformat_mantissa): its top bits
 * modulo 32 without leading zeros, then each 32 bits as 8 digits. */
static void mantissa_hex(unsigned __int128 mant, unsigned bits, char *buf, size_t n)
{
	unsigned first = bits % 32 ? bits % 32 : 32, left = bits - first;
	size_t k = (size_t)snprintf(buf, n, "%" PRIx64, (uint64_t)((mant >> left) & ((1ull << first) - 1)));

	while (left && k < n) {
		left -= 32;
		k += (size_t)snprintf(buf + k, n - k, "%08" PRIx64, (uint64_t)((mant >> left) & 0xffffffffu));
	}
}

/* ---- a quad's exact decimal digits ---- */

#define QUAD_LIMBS 1300 /* 113 + 16494 * log2(5) bits, in 32-bit limbs */

struct bignum {
	uint32_t *limb; /* least significant first */
	size_t n;
};

static uint32_t pow5(int e)
{
	uint32_t p = 1;

	while (e-- > 0)
		p *= 5;
	return p;
}

static void big_mul_small(struct bignum *b, uint32_t m)
{
	uint64_t carry = 0;

	for (size_t i = 0; i < b->n; i++) {
		uint64_t v = (uint64_t)b->limb[i] * m + carry;

		b->limb[i] = (uint32_t)v;
		carry = v >> 32;
	}
	if (carry)
		b->limb[b->n++] = (uint32_t)carry;
}

/* @b divided by 1e9 in place; returns the remainder. */
static uint32_t big_div_billion(struct bignum *b)
{
	uint64_t rem = 0;

	for (size_t i = b->n; i-- > 0;) {
		uint64_t cur = (rem << 32) | b->limb[i];

		b->limb[i] = (uint32_t)(cur / 1000000000u);
		rem = cur % 1000000000u;
	}
	while (b->n && !b->limb[b->n - 1])
		b->n--;
	return (uint32_t)rem;
}

/* The decimal digits of @mant * 2^@e2 (not zero) as a string of digits D
 * (caller frees) with the value D * 10^*@k. */
static char *exact_digits(unsigned __int128 mant, int e2, int *k)
{
	struct bignum b = { xcalloc(QUAD_LIMBS, sizeof(uint32_t)), 0 };
	char *rev = xmalloc(QUAD_LIMBS * 10 + 1), *out;
	size_t n = 0;

	for (int i = 0; i < 4; i++, mant >>= 32)
		b.limb[b.n++] = (uint32_t)mant;
	while (b.n && !b.limb[b.n - 1])
		b.n--;
	*k = e2 < 0 ? e2 : 0;
	/* m * 2^-e = m * 5^e / 10^e: by 5^13 or 2^31 at a time */
	for (int left = e2 < 0 ? -e2 : e2, step; left > 0; left -= step) {
		step = left < (e2 < 0 ? 13 : 31) ? left : (e2 < 0 ? 13 : 31);
		big_mul_small(&b, e2 < 0 ? pow5(step) : 1u << step);
	}
	while (b.n) {
		uint32_t r = big_div_billion(&b);

		for (int d = 0; d < 9; d++, r /= 10)
			rev[n++] = (char)('0' + r % 10);
	}
	while (n > 1 && rev[n - 1] == '0')
		n--;
	out = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = '\0';
	free(rev);
	free(b.limb);
	return out;
}

/* @d (its digits, @x the exponent of the first) rounded to @p digits, half
 * to even; *@x grows when the rounding carries out of the first digit. */
static void round_digits(char *d, int p, int *x)
{
	size_t n = strlen(d);
	bool up;

	if (n <= (size_t)p)
		return;
	up = d[p] > '5' || (d[p] == '5' && (strspn(d + p + 1, "0") != strlen(d + p + 1) || (d[p - 1] - '0') % 2));
	d[p] = '\0';
	for (int i = p - 1; up && i >= 0; i--) {
		up = d[i] == '9';
		d[i] = up ? '0' : (char)(d[i] + 1);
	}
	if (up) {
		memmove(d + 1, d, (size_t)p - 1);
		d[0] = '1';
		(*x)++;
	}
}

/* printf's %.{p}g of the digits @d whose first has exponent @x. */
static void g_format(const char *d, int x, int p, bool neg, char *buf, size_t n)
{
	size_t len = strlen(d), k = 0;

	while (len > 1 && d[len - 1] == '0')
		len--;
	if (neg)
		buf[k++] = '-';
	if (x < -4 || x >= p) {
		k += (size_t)snprintf(buf + k, n - k, "%c%s%.*s", d[0], len > 1 ? "." : "", (int)len - 1, d + 1);
		snprintf(buf + k, n - k, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
	} else if (x < 0) {
		buf[k++] = '0';
		buf[k++] = '.';
		for (int i = 0; i < -x - 1; i++)
			buf[k++] = '0';
		snprintf(buf + k, n - k, "%.*s", (int)len, d);
	} else {
		for (int i = 0; i <= x; i++)
			buf[k++] = (size_t)i < len ? d[i] : '0';
		buf[k] = '\0';
		if (len > (size_t)x + 1)
			snprintf(buf + k, n - k, ".%.*s", (int)(len - (size_t)x - 1), d + x + 1);
	}
}

static void quad_text(unsigned __int128 mant, int e2, bool neg, char *buf, size_t n)
{
	int k, x;
	char *d = exact_digits(mant, e2, &k);

	x = (int)strlen(d) - 1 + k;
	round_digits(d, quad.digits, &x);
	g_format(d, x, quad.digits, neg, buf, n);
	free(d);
}

/* The value of a format the host's long double holds exactly. */
static long double host_value(const struct float_format *f, unsigned __int128 mant, int exp, bool neg)
{
	long double v;

	if (!f->explicit_int && exp)
		mant |= (unsigned __int128)1 << f->mant_bits;
	v = ldexpl((long double)(uint64_t)mant,
		   (exp ? exp : 1) - ((1 << (f->exp_bits - 1)) - 1) - (int)f->mant_bits +
			   (f->explicit_int ? 1 : 0));
	return neg ? -v : v;
}

enum render_float_class render_float(const struct dw_type *t, const uint8_t *data, char *buf, size_t n)
{
	const struct float_format *f = format_of(t);
	unsigned __int128 v, mant;
	unsigned max;
	size_t k;
	int exp;
	bool neg;

	if (!f) {
		snprintf(buf, n, "<%s>", t->name ? t->name : "float");
		return RENDER_FLOAT_UNKNOWN;
	}
	v = bits_of(data, t->size);
	mant = v & (((unsigned __int128)1 << f->mant_bits) - 1);
	exp = (int)(v >> f->mant_bits) & ((1 << f->exp_bits) - 1);
	neg = (v >> (f->mant_bits + f->exp_bits)) & 1;
	max = (1u << f->exp_bits) - 1;
	if (f->explicit_int && (exp == 0) != !(mant >> 63)) {
		snprintf(buf, n, "<invalid float value>");
		return RENDER_FLOAT_INVALID;
	}
	if ((unsigned)exp == max) {
		bool nan = f->explicit_int ? (mant << 65) != 0 : mant != 0;

		if (!nan) {
			snprintf(buf, n, neg ? "-inf" : "inf");
			return RENDER_FLOAT_INF;
		}
		k = (size_t)snprintf(buf, n, "%snan(0x", neg ? "-" : "");
		mantissa_hex(mant, f->mant_bits, buf + k, n - k);
		strncat(buf, ")", n - strlen(buf) - 1);
		return RENDER_FLOAT_NAN;
	}
	if (f == &quad && (mant || exp))
		quad_text(exp ? mant | ((unsigned __int128)1 << 112) : mant, (exp ? exp : 1) - 16383 - 112, neg,
			  buf, n);
	else
		snprintf(buf, n, "%.*Lg", f->digits, host_value(f, mant, exp, neg));
	return RENDER_FLOAT_NUMBER;
}

void render_complex_part(const struct dw_type *t, struct dw_type *part)
{
	memset(part, 0, sizeof(*part));
	part->kind = DW_TYPE_FLOAT;
	part->size = t->size / 2;
	part->name = t->name;
}

/* IEEE 754's decimal interchange formats in the binary (BID) encoding
 * x86-64 uses: after the sign, an exponent of @exp_bits and a
 * coefficient whose top bits are implied 100 when the two bits after
 * the sign are 11. */
struct decimal_format {
	unsigned exp_bits, bias, digits;
};

static const struct decimal_format dec32 = { 8, 101, 7 }, dec64 = { 10, 398, 16 }, dec128 = { 14, 6176, 34 };

/* The coefficient @c and exponent @e as the decimal standard's
 * to-scientific-string writes them. */
static void scientific_string(unsigned __int128 c, int e, bool neg, char *buf, size_t n)
{
	char d[40];
	int len = 0, adjusted, k = 0;

	do
		d[len++] = (char)('0' + (int)(c % 10));
	while ((c /= 10) != 0);
	for (int i = 0; i < len / 2; i++) {
		char t = d[i];

		d[i] = d[len - 1 - i];
		d[len - 1 - i] = t;
	}
	d[len] = '\0';
	adjusted = e + len - 1;
	if (neg)
		buf[k++] = '-';
	if (e <= 0 && adjusted >= -6) {
		int point = len + e; /* digits before the point */

		if (point > 0) {
			snprintf(buf + k, n - (size_t)k, "%.*s%s%s", point, d, e ? "." : "", d + point);
			return;
		}
		k += snprintf(buf + k, n - (size_t)k, "0.");
		for (; point < 0 && (size_t)k + 1 < n; point++)
			buf[k++] = '0';
		snprintf(buf + k, n - (size_t)k, "%s", d);
	} else {
		snprintf(buf + k, n - (size_t)k, "%c%s%sE%+d", d[0], len > 1 ? "." : "", d + 1, adjusted);
	}
}

enum render_float_class render_decimal(const struct dw_type *t, const uint8_t *data, char *buf, size_t n)
{
	const struct decimal_format *f = t->size == 4 ? &dec32 : t->size == 8 ? &dec64 : t->size == 16 ? &dec128 : NULL;
	unsigned __int128 v, c, max = 1;
	unsigned bits, coeff_bits;
	bool neg;
	int e;

	if (!f) {
		snprintf(buf, n, "<%s>", t->name ? t->name : "decimal");
		return RENDER_FLOAT_UNKNOWN;
	}
	bits = (unsigned)t->size * 8;
	v = bits_of(data, t->size);
	neg = (v >> (bits - 1)) & 1;
	coeff_bits = bits - 1 - f->exp_bits;
	if (((v >> (bits - 3)) & 3) == 3) {
		if (((v >> (bits - 5)) & 3) == 3) {
			bool nan = (v >> (bits - 6)) & 1;

			snprintf(buf, n, "%s%s", neg ? "-" : "", nan ? ((v >> (bits - 7)) & 1 ? "sNaN" : "NaN")
							: "Infinity");
			return nan ? RENDER_FLOAT_NAN : RENDER_FLOAT_INF;
		}
		e = (int)((v >> (coeff_bits - 2)) & ((1u << f->exp_bits) - 1));
		c = (v & (((unsigned __int128)1 << (coeff_bits - 2)) - 1)) | ((unsigned __int128)4 << (coeff_bits - 2));
	} else {
		e = (int)((v >> coeff_bits) & ((1u << f->exp_bits) - 1));
		c = v & (((unsigned __int128)1 << coeff_bits) - 1);
	}
	for (unsigned i = 0; i < f->digits; i++)
		max *= 10;
	if (c >= max)
		c = 0; /* a non-canonical coefficient reads as zero */
	scientific_string(c, e - (int)f->bias, neg, buf, n);
	return RENDER_FLOAT_NUMBER;
}
