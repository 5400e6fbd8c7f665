/* ast.h - the syntax tree of a wraith script.
 *
 * Layer rule: script/ is pure: it depends on util/ only (no libdw, no LLVM,
 * no libbpf).  The parser builds this tree; semantic checks annotate it;
 * tracer/ and codegen/ read it.
 *
 * Ownership: a struct ast_script owns everything reachable from it; free it
 * with ast_script_free().  Every node carries the source location of the
 * text it came from, so any later stage can report an error with a caret.
 */
#ifndef WRAITH_SCRIPT_AST_H
#define WRAITH_SCRIPT_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* ---- expressions ---- */
enum ast_expr_kind {
	AST_EXPR_INT,      /* integer literal: .ival (its 64 bits), .num_flags */
	AST_EXPR_FLOAT,    /* floating literal: .fval, .num_flags */
	AST_EXPR_BOOL,     /* true / false: .ival 0 or 1 */
	AST_EXPR_STRING,   /* string literal: .str (escapes resolved) */
	AST_EXPR_IDENT,    /* name: .str (script variable or DWARF variable) */
	AST_EXPR_SPECIAL,  /* $pid, $tid, $timestamp, ...: .special */
	AST_EXPR_UNARY,    /* .op, .lhs */
	AST_EXPR_BINARY,   /* .op, .lhs, .rhs */
	AST_EXPR_MEMBER,   /* .lhs . .str  (also tuple-style .0: str = "0"); .arrow for -> */
	AST_EXPR_INDEX,    /* .lhs [ .rhs ] */
	AST_EXPR_CALL,     /* .str ( .args ) : strncmp, starts_with, memcmp, hex, cast */
};

enum ast_special {
	AST_SPECIAL_PID,
	AST_SPECIAL_TID,
	AST_SPECIAL_TIMESTAMP,
	AST_SPECIAL_PC,
	AST_SPECIAL_SP,
	AST_SPECIAL_HOST_PID,  /* $pid and $tid as the initial PID namespace sees them */
	AST_SPECIAL_HOST_TID,
	AST_SPECIAL_INPUT_PID, /* the PID given to -p */
};
#define AST_SPECIAL_COUNT (AST_SPECIAL_INPUT_PID + 1)

enum ast_op {
	/* unary */
	AST_OP_NEG, AST_OP_NOT, AST_OP_BITNOT, AST_OP_DEREF, AST_OP_ADDR,
	/* binary, lowest precedence last */
	AST_OP_MUL, AST_OP_DIV, AST_OP_MOD,
	AST_OP_ADD, AST_OP_SUB,
	AST_OP_SHL, AST_OP_SHR,
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE,
	AST_OP_EQ, AST_OP_NE,
	AST_OP_BITAND, AST_OP_BITXOR, AST_OP_BITOR,
	AST_OP_AND, AST_OP_OR,
};

/* How a numeric literal was written, which gives its C type: an integer
 * is int, long or unsigned long by C's rules for its value, base and
 * suffix; a floating literal is double, or float with an f suffix. */
#define AST_NUM_UNSIGNED 0x1u  /* u or U suffix */
#define AST_NUM_LONG     0x2u  /* l, L, ll or LL suffix */
#define AST_NUM_RADIX    0x4u  /* 0x, 0o or 0b: may be unsigned without a suffix */
#define AST_NUM_FLOAT    0x8u  /* f or F suffix on a floating literal */

struct ast_expr {
	enum ast_expr_kind kind;
	struct src_loc loc;
	enum ast_op op;
	enum ast_special special;
	int64_t ival;
	double fval;              /* FLOAT */
	unsigned num_flags;       /* INT, FLOAT: AST_NUM_* */
	char *str;                /* owned */
	struct ast_expr *lhs;     /* owned */
	struct ast_expr *rhs;     /* owned */
	struct ast_expr **args;   /* owned array of owned */
	size_t n_args;
	size_t str_len;           /* STRING: bytes in .str (it may hold \0) */
	/* CALL to cast: the type its second argument names, parsed (owned);
	 * NULL when that is no string literal (the checker says so). */
	struct typespec *ctype;
	bool arrow;               /* MEMBER: written `p->x` (p must be a pointer) */
	bool call;                /* MEMBER: written `v.size()`, a method of the C++
				   * library's values (no arguments); CALL: written as
				   * a method of its first argument, `s.starts_with("ab")` */
	size_t off, end;          /* byte range [off, end) of the expression in the script */
	unsigned height;          /* of the tree below: 1 for a leaf; the parser keeps it at
				   most SCRIPT_MAX_EXPR_DEPTH, so every stage may recurse */
};

/* ---- statements ---- */
enum ast_stmt_kind {
	AST_STMT_PRINT, /* .fmt (may be NULL for `print expr;`), .args */
	AST_STMT_BT,    /* .bt_flags (WR_BT_F_* bits, inline unless noinline) */
	AST_STMT_IF,    /* .cond, .then_body, .elifs, .else_body */
	AST_STMT_LET,   /* .name = .value */
	AST_STMT_EXPR,  /* .value */
	AST_STMT_COUNT, /* `count bt [, KEY];`: .bt_flags, .value = KEY or NULL */
};

struct ast_block {
	struct ast_stmt **stmts; /* owned array of owned */
	size_t n;
};

/* Format placeholder parsed out of a print format string. */
enum ast_fmt_spec {
	AST_FMT_DEFAULT,  /* {} */
	AST_FMT_HEX,      /* {:x} */
	AST_FMT_HEX_UPPER,/* {:X} */
	AST_FMT_PTR,      /* {:p} */
	AST_FMT_STR,      /* {:s} */
	AST_FMT_RAW,      /* {:r}: a value's raw layout, as gdb's print/r (no printers) */
};

/* Memory-dump length of {:x.N} / {:s.N} / {:x.*} / {:x.name$}. */
enum ast_fmt_len {
	AST_FMT_LEN_NONE,   /* plain {:x}: the value's own bytes */
	AST_FMT_LEN_FIXED,  /* {:x.N}: .len_value bytes */
	AST_FMT_LEN_STAR,   /* {:x.*}: the length is an extra argument before the value */
	AST_FMT_LEN_VAR,    /* {:x.name$}: the length is the script variable .len_var */
};

struct ast_fmt_piece {
	char *literal;           /* owned text before the placeholder (may be "") */
	bool has_placeholder;    /* false only for the trailing literal */
	enum ast_fmt_spec spec;
	struct src_loc loc;      /* of the placeholder inside the string */
	enum ast_fmt_len len_kind;
	uint64_t len_value;      /* AST_FMT_LEN_FIXED, >= 1 */
	char *len_var;           /* owned, AST_FMT_LEN_VAR */
	size_t literal_len;      /* bytes in .literal (it may hold \0) */
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct src_loc loc;
	/* print */
	char *fmt;                      /* owned raw format text (escapes resolved) or NULL */
	struct ast_fmt_piece *pieces;   /* owned, filled by the parser for fmt */
	size_t n_pieces;
	struct ast_expr **args;         /* owned */
	size_t n_args;
	/* bt */
	unsigned bt_flags;
	/* if */
	struct ast_expr *cond;          /* owned */
	struct ast_block then_body;
	/* `else if` arms in order, each an IF statement with only .cond and
	 * .then_body: a chain is a flat list, not nesting, so a long chain
	 * costs no depth in any stage that walks the tree. */
	struct ast_stmt **elifs;        /* owned array of owned */
	size_t n_elifs;
	struct ast_block else_body;     /* the final `else`, after every arm */
	/* let / expr */
	char *name;                     /* owned */
	struct ast_expr *value;         /* owned */
	struct src_loc name_loc;        /* let: of the name */
	size_t fmt_len;                 /* print: bytes in .fmt (it may hold \0) */
};

/* ---- probes ---- */
enum ast_target_kind {
	AST_TARGET_FUNCTION,  /* .function */
	AST_TARGET_LINE,      /* .file : .line */
	AST_TARGET_ADDRESS,   /* .address in the main module (or .module) */
};

struct ast_target {
	enum ast_target_kind kind;
	struct src_loc loc;
	char *text;       /* owned: the pattern exactly as written */
	char *function;   /* owned, FUNCTION */
	char *file;       /* owned, LINE */
	unsigned line;    /* LINE */
	char *module;     /* owned, ADDRESS with module prefix, else NULL */
	uint64_t address; /* ADDRESS */
};

struct ast_probe {
	struct src_loc loc;      /* of the `trace` keyword */
	struct ast_target target;
	struct ast_block body;
	char *body_text;         /* owned: source text between the braces, for `save` */
	bool disabled;           /* the line before `trace` is AST_DISABLED_MARK */
};

/* The line `save` writes before a disabled probe: a probe it stands
 * before (alone on its line, blanks before it allowed) is added disabled. */
#define AST_DISABLED_MARK "// disabled:"

struct ast_script {
	struct ast_probe **probes; /* owned */
	size_t n_probes;
};

void ast_expr_free(struct ast_expr *e);
void ast_stmt_free(struct ast_stmt *s);
void ast_block_release(struct ast_block *b);
void ast_probe_free(struct ast_probe *p);
/* Free what @t owns (not @t). */
void ast_target_release(struct ast_target *t);
/* Frees the script and everything in it; NULL is a no-op. */
void ast_script_free(struct ast_script *s);

/* Human-readable dump of the tree (for `--dry-run -v` and tests): one line
 * per probe and statement, indented by nesting, expressions fully
 * parenthesised.  Appends to @out. */
struct strbuf;
void ast_script_dump(const struct ast_script *s, struct strbuf *out);
/* Source text of a leaf expression (literal, identifier, `$special`);
 * appends nothing for other kinds.  Appends to @out. */
void ast_leaf_text(const struct ast_expr *e, struct strbuf *out);
/* One expression in the fully parenthesised form used by the dump, e.g.
 * `((a + (b * c)) == 3)`.  Appends to @out. */
void ast_expr_dump(const struct ast_expr *e, struct strbuf *out);
/* One expression as a user writes it, with the parentheses precedence
 * needs and no others, e.g. `(a + b) * c == 3`.  Appends to @out. */
void ast_expr_text(const struct ast_expr *e, struct strbuf *out);
/* A string as a script literal with quotes and escapes.  Appends to @out. */
void ast_quote_string(const char *s, size_t len, struct strbuf *out);

/* The hint that lists every special variable. */
#define AST_SPECIALS_HINT \
	"special variables are $pid, $tid, $host_pid, $host_tid, $input_pid, $timestamp, $pc and $sp"

/* Static names: "+", "<<", ... / "pid", "tid", ... (without the '$') /
 * "x", "X", "p", "s", "" (default). */
const char *ast_op_name(enum ast_op op);
/* How tightly @op binds, the one table the parser and the printers share:
 * binary operators from 10 (* / %) down to 1 (||), unary ones
 * AST_PREC_UNARY; `.` and `[ ]` bind tighter still. */
int ast_op_precedence(enum ast_op op);
#define AST_PREC_UNARY   11
#define AST_PREC_POSTFIX 12
const char *ast_special_name(enum ast_special sp);
const char *ast_fmt_spec_name(enum ast_fmt_spec spec);

#endif
