/* dump.c - memory dumps of print arguments ({:x.N}, {:X.N}, {:s.N} and
 * their {:x.*} / {:x.name$} forms) as text: hex bytes, or the bytes as
 * text up to a NUL with everything unprintable escaped.  A dump cut at
 * WR_DUMP_MAX says so, and one that could not be read says where.
 */
#include "render/render.h"
#include "util/strbuf.h"

#include <inttypes.h>

bool render_dump_text(const struct ev_arg *a, enum ast_fmt_spec spec, struct strbuf *out)
{
	const char *digits = spec == AST_FMT_HEX_UPPER ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n = a->len;

	if (a->status == WR_ARG_NULL_DEREF) {
		strbuf_addstr(out, "<error: null pointer>");
		return false;
	}
	if (a->status) {
		strbuf_addf(out, "<error: Cannot access memory at address 0x%" PRIx64 ">", a->value);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = a->data[i];

		if (spec != AST_FMT_STR) {
			if (i)
				strbuf_addch(out, ' ');
			strbuf_addch(out, digits[c >> 4]);
			strbuf_addch(out, digits[c & 15]);
		} else if (!c) {
			return true;
		} else if (c >= 0x20 && c < 0x7f && c != '\\') {
			strbuf_addch(out, (char)c);
		} else {
			strbuf_addf(out, c == '\\' ? "\\\\" : "\\x%02x", c);
		}
	}
	if (a->aux > n)
		strbuf_addf(out, " ... (%zu of %u bytes: a dump shows at most %u)", n, a->aux,
			    WR_DUMP_MAX);
	return true;
}
