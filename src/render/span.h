/* span.h - rendered output as styled spans: each piece of text says what
 * it is (a frame number, a function, a status...), so every writer styles
 * or encodes it from what it is and never reads the text back.
 *
 * Layer rule: render/; depends on util/ only.  The renderer (render.h)
 * fills span lists; the writers here (plain or ANSI text, NDJSON) and the
 * shell's output panel (ui/output.c) consume them.
 *
 * The rules of a span list:
 * - It is a flat sequence.  Group spans (span_open() ... span_close())
 *   nest and carry no text; leaves carry a role, a tone and up to two
 *   texts: the shown text, which text writers print, and the data text,
 *   which the JSON writer encodes.  A leaf may have either or both, so the
 *   display and the data need not say the same thing ("#2" and 2).
 * - Text writers print the shown text of every leaf, in order, and nothing
 *   else; lines end with SPAN_EOL leaves.  Style comes from the tone when
 *   it is set (how a backtrace ended), otherwise from the role.
 * - The JSON writer makes each group an object or an array and each leaf
 *   with data a "key": value member, all as the role table in span.c says:
 *   the key, and whether the value is a string, a number or a JSON
 *   literal (true, false); span_null() gives null.  Groups of kind
 *   SPAN_JSON_NONE are for display only and transparent to JSON.  The
 *   writer never reorders: data spans come in the order of the fields.
 * - Names known only at run time (a struct's members, a parameter's name)
 *   are a SPAN_KEY leaf whose data is the name: it keys the member that
 *   follows it.  SPAN_OBJECT, SPAN_ARRAY, SPAN_STRING, SPAN_NUMBER and
 *   SPAN_LITERAL are the JSON shapes with no fixed key, for such values.
 * - Every text is copied into the list; nothing is borrowed.
 * - New kinds of output (typed values of print arguments, values of frame
 *   parameters, counted stacks in a panel) add roles to SPAN_ROLES and
 *   spans of those roles; every writer then handles them through the
 *   table, and no writer needs to learn the new output's shape.
 */
#ifndef WRAITH_RENDER_SPAN_H
#define WRAITH_RENDER_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* How a role is encoded in JSON: groups as objects or arrays (or not at
 * all), leaves as strings, numbers or literals (true/false), or not at all
 * (punctuation and other display-only pieces). */
enum span_json {
	SPAN_JSON_NONE,
	SPAN_JSON_OBJECT,
	SPAN_JSON_ARRAY,
	SPAN_JSON_STRING,
	SPAN_JSON_NUMBER,
	SPAN_JSON_LITERAL,
};

/* X(role, JSON key or NULL, enum span_json): the one list of roles. */
#define SPAN_ROLES(X)                                                        \
	/* groups */                                                         \
	X(SPAN_EVENT,       NULL,           SPAN_JSON_OBJECT)                \
	X(SPAN_HEADER,      NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_ITEMS,       "items",        SPAN_JSON_ARRAY)                 \
	X(SPAN_ITEM,        NULL,           SPAN_JSON_OBJECT)                \
	X(SPAN_FRAMES,      "frames",       SPAN_JSON_ARRAY)                 \
	X(SPAN_FRAME,       NULL,           SPAN_JSON_OBJECT)                \
	X(SPAN_OBJECT,      NULL,           SPAN_JSON_OBJECT)                \
	X(SPAN_ARRAY,       NULL,           SPAN_JSON_ARRAY)                 \
	X(SPAN_ARGS,        "args",         SPAN_JSON_ARRAY)                 \
	X(SPAN_ARG,         NULL,           SPAN_JSON_OBJECT)                \
	/* leaves: values named or shaped at run time */                     \
	X(SPAN_KEY,         NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_STRING,      NULL,           SPAN_JSON_STRING)                \
	X(SPAN_NUMBER,      NULL,           SPAN_JSON_NUMBER)                \
	X(SPAN_LITERAL,     NULL,           SPAN_JSON_LITERAL)               \
	/* leaves: layout */                                                 \
	X(SPAN_TEXT,        NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_EOL,         NULL,           SPAN_JSON_NONE)                  \
	/* leaves: the event */                                              \
	X(SPAN_VERSION,     "version",      SPAN_JSON_NUMBER)                \
	X(SPAN_SEQ,         "seq",          SPAN_JSON_NUMBER)                \
	X(SPAN_TIME,        NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_PROBE,       "probe",        SPAN_JSON_NUMBER)                \
	X(SPAN_TARGET,      "target",       SPAN_JSON_STRING)                \
	X(SPAN_PID,         "pid",          SPAN_JSON_NUMBER)                \
	X(SPAN_TID,         "tid",          SPAN_JSON_NUMBER)                \
	X(SPAN_TIMESTAMP,   "timestamp_ns", SPAN_JSON_NUMBER)                \
	X(SPAN_TRUNCATED,   "truncated",    SPAN_JSON_LITERAL)               \
	X(SPAN_TYPE,        "type",         SPAN_JSON_STRING)                \
	X(SPAN_CODE,        "code",         SPAN_JSON_NUMBER)                \
	/* leaves: print items */                                            \
	X(SPAN_PRINT_TEXT,  "text",         SPAN_JSON_STRING)                \
	X(SPAN_EXPR,        "expr",         SPAN_JSON_STRING)                \
	X(SPAN_VALUE,       NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_VALUE_TYPE,  "type",         SPAN_JSON_STRING)                \
	X(SPAN_VALUE_ERROR, "error",        SPAN_JSON_STRING)                \
	/* leaves: expression errors */                                      \
	X(SPAN_EXPR_SOURCE, "expr",         SPAN_JSON_STRING)                \
	X(SPAN_REASON,      "reason",       SPAN_JSON_STRING)                \
	X(SPAN_FAIL_ADDR,   "addr",         SPAN_JSON_STRING)                \
	X(SPAN_FLAGS,       "flags",        SPAN_JSON_STRING)                \
	/* leaves: backtraces */                                             \
	X(SPAN_STATUS,      "status",       SPAN_JSON_STRING)                \
	X(SPAN_STATUS_CODE, "status_code",  SPAN_JSON_NUMBER)                \
	X(SPAN_ERROR,       "error",        SPAN_JSON_STRING)                \
	X(SPAN_ERROR_CODE,  "error_code",   SPAN_JSON_NUMBER)                \
	X(SPAN_DEPTH,       "max_depth",    SPAN_JSON_NUMBER)                \
	X(SPAN_FRAME_COUNT, "frame_count",  SPAN_JSON_NUMBER)                \
	/* leaves: frames */                                                 \
	X(SPAN_FRAME_NO,    "index",        SPAN_JSON_NUMBER)                \
	X(SPAN_ADDRESS,     NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_FUNCTION,    "function",     SPAN_JSON_STRING)                \
	X(SPAN_PARAMS,      "params",       SPAN_JSON_STRING)                \
	X(SPAN_FILE,        "file",         SPAN_JSON_STRING)                \
	X(SPAN_PATH,        "path",         SPAN_JSON_STRING)                \
	X(SPAN_LINE,        "line",         SPAN_JSON_NUMBER)                \
	X(SPAN_COLUMN,      "column",       SPAN_JSON_NUMBER)                \
	X(SPAN_WHERE,       NULL,           SPAN_JSON_NONE)                  \
	X(SPAN_MODULE,      "module",       SPAN_JSON_STRING)                \
	X(SPAN_OFFSET,      "offset",       SPAN_JSON_STRING)                \
	X(SPAN_IP,          "ip",           SPAN_JSON_STRING)                \
	X(SPAN_INLINE,      "inline",       SPAN_JSON_LITERAL)               \
	X(SPAN_TAILCALL,    "tailcall",     SPAN_JSON_LITERAL)               \
	/* frame values (bt args, bt full): groups, then their leaves */    \
	X(SPAN_LOCALS,      "locals",       SPAN_JSON_ARRAY)                 \
	X(SPAN_VAR_NAME,    "name",         SPAN_JSON_STRING)                \
	X(SPAN_VAR_VALUE,   "value",        SPAN_JSON_STRING)

enum span_role {
#define SPAN_ROLE_ENUM(role, key, json) role,
	SPAN_ROLES(SPAN_ROLE_ENUM)
#undef SPAN_ROLE_ENUM
	SPAN_ROLE_COUNT_
};

/* How the thing a span belongs to went: a backtrace's status colours its
 * header and stop lines. */
enum span_tone {
	SPAN_TONE_NONE,
	SPAN_TONE_GOOD,  /* complete */
	SPAN_TONE_WARN,  /* stopped for a known, benign reason (depth, no CFI) */
	SPAN_TONE_BAD,   /* stopped by an error */
};

#define SPAN_F_SHOW  0x1u /* has shown text */
#define SPAN_F_DATA  0x2u /* has data text (or is null) */
#define SPAN_F_NULL  0x4u /* the data is JSON null */
#define SPAN_F_OPEN  0x8u /* opens a group of its role */
#define SPAN_F_CLOSE 0x10u /* closes the innermost open group */
/* On an opening span: the group's JSON value, written once by
 * span_seal_json(), is the text at data (data_len bytes), and the group
 * has show_len spans after this one, its close included.  The JSON
 * writer copies the value and skips the group; other writers ignore it. */
#define SPAN_F_JSON  0x20u

struct span {
	uint8_t role;   /* enum span_role */
	uint8_t tone;   /* enum span_tone */
	uint8_t flags;  /* SPAN_F_* */
	uint32_t show;  /* offset of the shown text in the list's text */
	uint32_t data;  /* offset of the data text */
	uint32_t show_len; /* their lengths, so writers copy without measuring */
	uint32_t data_len;
	uint64_t value;    /* a number's leaf (span_*_u64, span_data_hex): the
			    * number, for a reader that wants it as one; else 0 */
};

struct span_list {
	struct span *v;      /* owned */
	size_t n, cap;
	struct strbuf text;  /* every text, each NUL-terminated */
	uint8_t *open;       /* owned: roles of the groups open now, outermost first */
	size_t depth, cap_open;
};

/* Embedded lists: init/release; reset empties one for reuse. */
void span_list_init(struct span_list *l);
void span_list_release(struct span_list *l);
void span_list_reset(struct span_list *l);

/* The texts of @s (borrowed from @l; "" when absent). */
const char *span_show(const struct span_list *l, const struct span *s);
const char *span_data(const struct span_list *l, const struct span *s);
/* The role's JSON key and encoding, from the table. */
const char *span_role_key(enum span_role role);
enum span_json span_role_json(enum span_role role);

/* Open a group of @role; close the innermost open one. */
void span_open(struct span_list *l, enum span_role role);
void span_close(struct span_list *l);

/* A leaf with shown text @show and data text @data (either may be NULL,
 * not both). */
void span_add(struct span_list *l, enum span_role role, enum span_tone tone, const char *show,
	      const char *data);
/* A leaf that is only shown, its text from printf. */
void span_showf(struct span_list *l, enum span_role role, enum span_tone tone, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A leaf that is only data: @n bytes of @data (to a NUL among them). */
void span_datan(struct span_list *l, enum span_role role, const char *data, size_t n);
/* A leaf that is only data, its text from printf. */
void span_dataf(struct span_list *l, enum span_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* span_add() with the texts' lengths known (each text is @len bytes and
 * NUL-terminated there). */
void span_addn(struct span_list *l, enum span_role role, enum span_tone tone, const char *show,
	       size_t show_len, const char *data, size_t data_len);
/* Leaves for numbers, formatted without printf (events are full of them):
 * data in decimal, data in hex as "0x1a2b", shown in decimal. */
void span_data_u64(struct span_list *l, enum span_role role, uint64_t v);
void span_data_hex(struct span_list *l, enum span_role role, uint64_t v);
void span_show_u64(struct span_list *l, enum span_role role, enum span_tone tone, uint64_t v);
/* A leaf's text built in place, without printf: span_text_begin() says
 * where it starts, the caller appends it to @l->text with the strbuf
 * adders, and span_show_end() or span_data_end() ends it and adds the leaf
 * (shown text or data). */
size_t span_text_begin(const struct span_list *l);
void span_show_end(struct span_list *l, enum span_role role, enum span_tone tone, size_t at);
void span_data_end(struct span_list *l, enum span_role role, size_t at);
/* A leaf whose data is null (shows nothing). */
void span_null(struct span_list *l, enum span_role role);
/* The end of a line. */
void span_eol(struct span_list *l);

/* Append the spans and texts of @frag, whose groups are balanced, to
 * @l: a fragment rendered once and kept (a backtrace's frame lines) is
 * added with two copies. */
void span_append(struct span_list *l, const struct span_list *frag);
/* The same for a list only span_write_json() reads: a group @frag has
 * sealed (span_seal_json()) comes as its JSON alone, without the spans
 * and texts inside it, which the JSON writer skips. */
void span_append_json(struct span_list *l, const struct span_list *frag);
/* Give every top-level group of @l that is a JSON object or array its
 * JSON value (SPAN_F_JSON), for a list that is appended many times. */
void span_seal_json(struct span_list *l);

/* ---- writers ---- */

/* The forms events are written in (--format): text with the pretty or
 * the plain shown text, or NDJSON (whose shown text is the pretty one). */
enum render_format {
	RENDER_PRETTY,
	RENDER_PLAIN,
	RENDER_JSON,
};

/* Parse "pretty" / "plain" / "json"; returns -1 for anything else. */
int render_format_parse(const char *s);

enum span_color {
	SPAN_COLOR_NONE = 0,
	SPAN_COLOR_ANSI = 1,
};

/* Append the shown text of @l to @out, with ANSI colours by role and tone
 * when @color says so (one escape pair per run of the same colour). */
void span_write_text(const struct span_list *l, enum span_color color, struct strbuf *out);
/* Append the data of @l as JSON: each top-level group one value on a line
 * of its own (NDJSON). */
void span_write_json(const struct span_list *l, struct strbuf *out);

#endif
