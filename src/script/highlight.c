/* highlight.c - script text classed for colouring (see highlight.h): the
 * lexer run over the text with its comments kept, each token's class a
 * span.
 */
#include "script/highlight.h"
#include "script/lexer.h"
#include "util/xalloc.h"

size_t script_highlight(const char *text, size_t len, struct script_hl_span **out)
{
	struct script_hl_span *v = NULL;
	size_t n = 0, cap = 0;
	struct lexer lx;
	struct token tok;

	lexer_init(&lx, text, LEXER_KEEP_COMMENTS);
	/* each token moves on by at least a byte: at most len + 1 of them */
	for (size_t guard = 0; guard <= len; guard++) {
		lexer_next(&lx, &tok, NULL);
		if (tok.kind == TOK_EOF || tok.off + tok.len > len)
			break;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct script_hl_span){ tok.off, tok.len, tok_kind_class(tok.kind) };
	}
	*out = v;
	return n;
}
