/* toml.h - a strict subset of TOML, for wraith's configuration file.
 *
 * Layer rule: util/ depends on nothing else in wraith.
 *
 * What is accepted: comments (#), table headers ([name] and [a.b]), bare
 * and quoted keys (dotted keys too), and four kinds of value: integers
 * (decimal, 0x, 0o, 0b, with _ between digits), strings (basic "..." with
 * escapes, literal '...'), booleans, and arrays whose elements are all
 * strings or all integers (over several lines, trailing comma allowed).
 * Everything else TOML has (floats, dates, multi-line strings, inline
 * tables, arrays of tables, nested or mixed arrays) is an error located at
 * line:col that names the construct, and so is anything that is not TOML
 * at all, a key set twice and a table defined twice.
 *
 * The result is a flat list in file order: one entry per table header
 * (key NULL) and one per key, each with the full name of its table, so a
 * reader can check names against what it knows and point at the place.
 */
#ifndef WRAITH_UTIL_TOML_H
#define WRAITH_UTIL_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

enum toml_type {
	TOML_STRING,
	TOML_INT,
	TOML_BOOL,
	TOML_ARRAY,
};

struct toml_value {
	enum toml_type type;
	enum toml_type elem;        /* TOML_ARRAY: type of the items (when n > 0) */
	char *str;                  /* owned (TOML_STRING) */
	int64_t i;                  /* TOML_INT */
	bool b;                     /* TOML_BOOL */
	struct toml_value *items;   /* owned (TOML_ARRAY) */
	size_t n;
	struct src_loc loc;         /* the value's text */
};

struct toml_entry {
	char *table;                /* owned: "" for the root table, "dwarf.debuginfod" */
	char *key;                  /* owned: NULL for a table header */
	struct src_loc loc;         /* the key (or the header's name) */
	struct toml_value value;
};

struct toml_doc {
	struct toml_entry *v;       /* owned */
	size_t n, cap;
};

/* Parse @text into @doc (zeroed by the caller).  Returns 0, or -EINVAL
 * with the first error in @d (and @doc released). */
int toml_parse(const char *text, struct toml_doc *doc, struct diag *d);
void toml_doc_release(struct toml_doc *doc);

/* "an integer", "a string", "a boolean", "an array of strings" ... for
 * messages.  Static string. */
const char *toml_value_kind(const struct toml_value *v);

#endif
