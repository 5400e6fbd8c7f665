/* fuzz_script.c - libFuzzer harness for the script front end: the input
 * is script text for the lexer, the parser and the semantic checks; a tree
 * that parses is also dumped and its diagnostics rendered, so every stage
 * that walks the tree runs on it.  Any crash, sanitizer report or leak is
 * a finding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "script/ast.h"
#include "script/parser.h"
#include "util/diag.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ast_script *s = NULL;
	struct diag d = { 0 };
	struct strbuf out = STRBUF_INIT;

	memcpy(text, data, size);
	text[size] = '\0'; /* a NUL inside ends the text, as for a script file's reader */
	if (script_parse(text, &s, &d) == 0 && script_check(s, &d) == 0)
		ast_script_dump(s, &out);
	if (d.msg)
		diag_render(&d, "fuzz.ws", text, &out);
	ast_script_free(s);
	diag_release(&d);
	strbuf_release(&out);
	free(text);
	return 0;
}
