/* pattern.c - trace patterns classified (see pattern.h): a function
 * name, FILE:LINE, 0xADDRESS or MODULE:0xADDRESS.
 *
 * The parser calls it for the text after `trace`, and the shell's `trace
 * TARGET` command without a whole script.  A single ':' splits FILE:LINE
 * or MODULE:0xADDR; C++ "::" and an ABI tag's "[abi:cxx11]" never do.
 */
#include "script/pattern.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/error.h"
#include "util/xalloc.h"

static int target_fail(struct diag *diag, struct src_loc loc, size_t at, size_t len,
		       const char *hint, const char *msg)
{
	loc.col += (unsigned)at;
	loc.len = len ? (unsigned)len : 1;
	if (diag)
		diag_set(diag, loc, hint, "%s", msg);
	return -WR_ESYNTAX;
}

/* Hex address at @text + @at ("0x..."), into t->address. */
static int parse_address(const char *text, size_t at, struct src_loc loc, struct ast_target *t,
			 struct diag *diag)
{
	const char *s = text + at + 2;
	char msg[128];
	size_t i;

	if (!*s)
		return target_fail(diag, loc, at, 2, "write the address in hex, e.g. 0x401000",
				   "address '0x' has no digits");
	for (i = 0; isxdigit((unsigned char)s[i]); i++)
		;
	if (s[i]) {
		snprintf(msg, sizeof(msg), "invalid hex digit '%c' in address", s[i]);
		return target_fail(diag, loc, at + 2 + i, 1, NULL, msg);
	}
	if (i - strspn(s, "0") > 16)
		return target_fail(diag, loc, at, strlen(text + at), NULL,
				   "address does not fit in 64 bits");
	t->kind = AST_TARGET_ADDRESS;
	t->address = strtoull(s, NULL, 16);
	return 0;
}

static int parse_line(const char *text, size_t colon, struct src_loc loc, struct ast_target *t,
		      struct diag *diag)
{
	const char *num = text + colon + 1;
	size_t n = strlen(num);
	unsigned long v;

	if (!colon)
		return target_fail(diag, loc, 0, 1, "write FILE:LINE, e.g. 'main.c:42'",
				   "missing file name before ':'");
	if (!n)
		return target_fail(diag, loc, colon, 1, "write FILE:LINE, e.g. 'main.c:42'",
				   "missing line number after ':'");
	if (strspn(num, "0123456789") != n)
		return target_fail(diag, loc, colon + 1, n,
				   "write FILE:LINE or MODULE:0xADDRESS",
				   "invalid line number in trace pattern");
	v = n > 10 ? ULONG_MAX : strtoul(num, NULL, 10);
	if (v == 0 || v > UINT_MAX)
		return target_fail(diag, loc, colon + 1, n, NULL,
				   v ? "line number is too large" : "line numbers start at 1");
	t->kind = AST_TARGET_LINE;
	t->file = xstrndup(text, colon);
	t->line = (unsigned)v;
	return 0;
}

/* Offset of the ':' separating FILE:LINE or MODULE:0xADDR, ignoring C++
 * "::" and the ':' of an ABI tag ("Edge::EvaluateCommand[abi:cxx11]"),
 * or -1. */
static long find_colon(const char *text)
{
	long found = -1;
	int in_tag = 0;

	for (size_t i = 0; text[i]; i++) {
		if (text[i] == '[' && strncmp(text + i, "[abi:", 5) == 0)
			in_tag = 1;
		else if (text[i] == ']')
			in_tag = 0;
		if (in_tag)
			continue;
		if (text[i] == ':' && text[i + 1] == ':') {
			i++;
			continue;
		}
		if (text[i] == ':')
			found = (long)i;
	}
	return found;
}

static bool hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int script_parse_target(const char *text, struct src_loc loc, struct ast_target *t,
			struct diag *diag)
{
	long colon = find_colon(text);
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->loc = loc;
	t->text = xstrdup(text);
	if (!*text) {
		err = target_fail(diag, loc, 0, 1, NULL, "empty trace pattern");
	} else if (hex_prefix(text)) {
		err = parse_address(text, 0, loc, t, diag);
	} else if (colon >= 0 && hex_prefix(text + colon + 1)) {
		err = colon ? parse_address(text, (size_t)colon + 1, loc, t, diag)
			    : target_fail(diag, loc, 0, 1, "write MODULE:0xADDRESS, e.g. 'libc.so.6:0x1234'",
					  "missing module name before ':'");
		if (!err)
			t->module = xstrndup(text, (size_t)colon);
	} else if (colon >= 0) {
		err = parse_line(text, (size_t)colon, loc, t, diag);
	} else if (strspn(text, "0123456789") == strlen(text)) {
		err = target_fail(diag, loc, 0, strlen(text), "write addresses in hex, e.g. 0x401000",
				  "a trace pattern cannot be a decimal number");
	} else {
		t->kind = AST_TARGET_FUNCTION;
		t->function = xstrdup(text);
	}
	if (err)
		ast_target_release(t);
	return err;
}
