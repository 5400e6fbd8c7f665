/* render.h - decoded events to styled spans (span.h), from which the
 * writers make pretty or plain text, ANSI colours, the shell's panel and
 * NDJSON.
 *
 * Layer rule: render/ depends on util/, protocol/ (decoded events), script/
 * (format strings and expressions of the probe) and dwarf/symbolize.h
 * (types of symbolized frames).  It never looks anything up itself: the
 * session gives it hooks that find a probe by wire id and symbolize a
 * frame, so the same renderer serves the TUI, script mode and --batch.
 *
 * What an event becomes: a SPAN_EVENT group holding the header (shown in
 * pretty format only) and a SPAN_ITEMS array of SPAN_ITEM groups, one per
 * print or backtrace; a backtrace holds a SPAN_FRAMES array of SPAN_FRAME
 * groups, one per line: each inlined call, the physical frame, and the
 * functions that left by tail calls; a print holds a SPAN_ARGS array of
 * SPAN_ARG groups, its arguments as typed data.  Every field JSON carries
 * is a data span, so span_write_json() of the list is the event's NDJSON
 * line, as doc/event.schema.json describes it.
 */
#ifndef WRAITH_RENDER_RENDER_H
#define WRAITH_RENDER_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/symbolize.h"
#include "protocol/decode.h"
#include "render/span.h"
#include "script/ast.h"
#include "util/strbuf.h"

/* The "version" of every JSON event: raised when a field changes meaning
 * or goes away (doc/event.schema.json describes this one). */
#define RENDER_JSON_VERSION 1

struct dw_module;
struct dw_type;
struct render_lines;

/* The DWARF type of one print argument on the wire, so program values are
 * shown as what they are (a struct, an enum name, a pointer's type). */
struct render_arg_type {
	uint16_t print;              /* print statement index */
	uint16_t arg;                /* wire argument index within it */
	const struct dw_type *type;  /* borrowed from the module's type cache */
	/* arg_frames: the function whose variable the argument reads when it
	 * is not the probe's own (a caller its function is inlined into, or
	 * a call inlined at the probe); borrowed */
	const char *frame;
	/* The module whose debug info .type is of (borrowed; NULL: none),
	 * in whose type cache a C variable-length array is sized by the
	 * lengths the probe read (dw_type_vla_sized()). */
	struct dw_module *module;
};

/* What the renderer needs of a probe. */
struct render_probe {
	uint32_t id;                 /* the user-visible probe number */
	const char *target;          /* the pattern as written, e.g. "leaf" */
	const struct ast_probe *ast; /* formats and print arguments */
	const struct render_arg_type *arg_types;
	size_t n_arg_types;
	/* Of the site the event came from: arguments that read another
	 * frame's variable (.frame set), shown with it. */
	const struct render_arg_type *arg_frames;
	size_t n_arg_frames;
};

/* A frame after symbolization. */
struct render_frame {
	const char *module_path;  /* NULL when the module is unknown */
	const char *module_name;  /* basename */
	struct dw_sym sym;        /* sym.n == 0 when nothing is known */
	bool signal_trampoline;   /* shown as gdb shows it: <signal handler called> */
	uint64_t tail_pc;         /* a tail-called function: the jump it left by (else 0) */
	uint64_t tail_module;     /* and the cookie of the module that jump is in */
};

/* One variable of a frame, for frame values. */
struct render_var {
	const char *name;
	const char *value;  /* as text: "3", "0x7ffd1234", "<optimized out>" */
	bool param;
	bool entry;         /* also what the caller passed: `x=x@entry=5` */
};

struct render_hooks {
	/* The probe of wire id @wire_id, or NULL (the event is then shown raw). */
	const struct render_probe *(*probe)(void *ctx, uint32_t wire_id);
	/* Symbolize @f; fill @out (strings borrowed until the next call). */
	void (*frame)(void *ctx, const struct wr_bt_frame *f, struct render_frame *out);
	/* Functions that tail-called between @callee and @caller (innermost
	 * first), at most @max; may be NULL. */
	size_t (*tailcalls)(void *ctx, const struct wr_bt_frame *callee,
			    const struct wr_bt_frame *caller, struct render_frame *out, size_t max);
	void *ctx;
	/* Append " <symbol+offset>" when address @addr of process @pid lies in
	 * a known object or function (gdb's `<g+20>`); may be NULL. */
	void (*symbol)(void *ctx, uint32_t pid, uint64_t addr, struct strbuf *out);
	/* Up to @len bytes of a vtable at @addr in process @pid (a C++
	 * virtual base's offset); how many, or -1.  May be NULL. */
	long (*vtable)(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t len);
	/* Frame values (bt args, bt full): the variables of function level
	 * @level of frame @i of @bt in an event of process @pid (levels as in
	 * render_frame's sym.frames, 0 = innermost), parameters first, then
	 * with @locals its locals; at most @max into @out, strings borrowed
	 * until the next call.  Returns how many, or -1 when not known, with
	 * @out[0].value saying why (static text) or NULL.  May be NULL. */
	long (*values)(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
		       unsigned level, bool locals, struct render_var *out, size_t max);
	/* The same for a function that left by a tail call between frame @i
	 * and its caller (@tail, from tailcalls()).  May be NULL. */
	long (*tail_values)(void *ctx, uint32_t pid, const struct ev_backtrace *bt, unsigned i,
			    const struct render_frame *tail, bool locals, struct render_var *out, size_t max);
	/* Of frame 0 @f (symbolized as @rf) of an event of probe site
	 * @wire_id: how many of its innermost inline frames a debugger
	 * stopped there would not show - inlined calls that begin at the
	 * probe's pc, inside the function instance the site stands in (gdb
	 * stops in the function it was asked to stop in).  May be NULL. */
	size_t (*hidden_inlines)(void *ctx, uint32_t wire_id, const struct wr_bt_frame *f,
				 const struct render_frame *rf);
	/* What the caller of frame 0 of an event of process @pid passed in
	 * DWARF register @reg, found as `bt args` finds it, by the capture
	 * @cap (the @n arguments of a WR_ITEM_CALLER); false when its call
	 * site does not say.  May be NULL. */
	bool (*caller_value)(void *ctx, uint32_t pid, const struct ev_arg *cap, size_t n, unsigned reg,
			     uint64_t *value);
	/* The string a char pointer @p the caller passed points to, as `bt
	 * args` reads it (the capture's stack, a module's read-only data),
	 * into @buf (at most @max bytes, up to its NUL): how many bytes, 0
	 * when it cannot be read there.  May be NULL. */
	size_t (*caller_string)(void *ctx, uint32_t pid, const struct ev_arg *cap, size_t n, uint64_t p,
				uint8_t *buf, size_t max);
};

/* gdb's `print elements` and `print max-depth`: how many elements of a
 * container (children of a printer: a map's key and value are two) and
 * characters of a string are shown, and how deeply values nest before
 * `{...}`.  What the probe copied was bounded by the same elements
 * (codegen_options.print_elements), so the two must agree. */
struct render_limits {
	unsigned elements;  /* 1.. */
	unsigned depth;
};

/* What a C variable-length array shows whose length was not read (its
 * elements cannot be told apart from what follows them). */
#define RENDER_VLA_MARKER "<variable length array>"

/* gdb's defaults: 200 elements, 20 levels. */
#define RENDER_LIMITS_GDB ((struct render_limits){ .elements = 200, .depth = 20 })

struct renderer {
	enum render_format format;  /* pretty or plain shown text; json shows pretty */
	struct render_limits limits; /* renderer_init(): gdb's; the owner may change them */
	struct render_hooks hooks;
	uint64_t seq;             /* events rendered so far */
	int64_t mono_to_real_ns;  /* add to a bpf timestamp to get wall-clock ns */
	bool relative_time;       /* pretty: seconds since start instead of wall time */
	/* json, and nothing but span_write_json() reads the events (script
	 * mode: no shell to show a sample): a backtrace's frames come as
	 * their JSON alone (span_append_json()), a fraction of the copying */
	bool json_only;
	uint64_t start_ns;        /* monotonic start, for relative_time */
	struct strbuf scratch;    /* owned: a value's text while it is built */
	struct render_lines *lines; /* owned: frame lines rendered before (backtrace.c) */
	/* pretty: the local time of the last event's second, "hh:mm:ss" */
	bool clock_valid;
	int64_t clock_secs;
	char clock_text[12];
};

void renderer_init(struct renderer *r, enum render_format format, const struct render_hooks *hooks);
void renderer_release(struct renderer *r);

/* Render one event as spans appended to @out (see above). */
void render_event(struct renderer *r, const struct event *ev, struct span_list *out);

/* A memory dump argument (WR_ARG_DUMP) as @spec shows it: hex bytes
 * ({:x.N}, {:X.N}) or text ({:s.N}); appends to @out.  Returns false when
 * the memory could not be read (@out says why). */
bool render_dump_text(const struct ev_arg *a, enum ast_fmt_spec spec, struct strbuf *out);

/* What rendering a program's value needs besides its bytes and type. */
struct render_value_ctx {
	/* Strings that char pointers inside the value point to, each with
	 * aux = the pointer's byte offset in the value (WR_ARG_ATTACH). */
	const struct ev_arg *attach;
	size_t n_attach;
	/* Append " <symbol+offset>" when @addr lies in a known object or
	 * function; may be NULL. */
	void (*symbol)(void *ctx, uint64_t addr, struct strbuf *out);
	/* Up to @len bytes of a vtable at @addr, as the process holds them
	 * (a C++ virtual base's offset); how many, or -1.  May be NULL. */
	long (*vtable)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	/* A value the probe assembled from pieces (WR_ARG_PIECES): bit i set
	 * when bit i of its bytes was not kept (<optimized out>), as many
	 * bytes as the value has; NULL when every bit was. */
	const uint8_t *unavail;
	/* How much of the value is shown; NULL: gdb's (RENDER_LIMITS_GDB).
	 * Borrowed. */
	const struct render_limits *limits;
	/* {:s} of a string of the library's (std::string, String, &str,
	 * Rc<str>): its characters alone, without quotes or escapes. */
	bool bare_text;
	/* Shown in place of what the value points to where that was not
	 * copied (a char pointer's string, a string's characters): an outer
	 * frame's marker that says why (tracer/frame_outer.c); NULL: `...`
	 * for a string's characters, nothing after a char pointer.
	 * Borrowed. */
	const char *not_copied;
	/* The copies of the C++ static data members the value shows (and of
	 * the strings their char pointers point to), as a print argument's
	 * attachments (WR_ARG_MEM, WR_MEM_F_STATIC) when they are not the
	 * value's own: a backtrace's frame values.  NULL: the value's own
	 * attachments hold them, or none came.  Borrowed. */
	const struct ev_arg *statics;
	/* render_frame_value(): a local of frame 0 in a bt full, shown whole
	 * as print shows it (gdb's bt full shows locals so), not short. */
	bool whole;
};

/* Whether any bit (or, with @all, every bit) of [@bit, @bit + @n) is set
 * in @mask (NULL: none is). */
bool render_bits_gone(const uint8_t *mask, size_t bit, size_t n, bool all);

/* A program value of type @t from its raw bytes (@len of them), with the
 * content gdb's `print` shows, in wraith's shape: `{key: "a", value: 3}`,
 * `[1, 2]`, `RED`, `65 'A'`, `0.10000000000000001`, `(F_A | F_C)`.  @top:
 * the value stands on its own, so a pointer shows its type first, as
 * `(struct x *) 0x55d0c0a01139 <global+8>`.  @vc may be NULL. */
void render_value(const struct dw_type *t, const uint8_t *data, size_t len, bool top,
		  const struct render_value_ctx *vc, struct strbuf *out);
/* Pointer @v of type @t: `(int *) 0x... <g+20>` (@top) or `0x... <g+20>`;
 * @text (may be NULL) is the string a char pointer points to (NULL:
 * vc->not_copied follows it, when set). */
void render_pointer(const struct dw_type *t, uint64_t v, const struct ev_arg *text, bool top,
		    const struct render_value_ctx *vc, struct strbuf *out);
/* Show printable characters past ASCII as themselves, as gdb does in a
 * UTF-8 locale (main() sets it from LC_CTYPE; off: escaped, as in the C
 * locale). */
void render_set_utf8(bool on);
/* Bytes @s (@n of them) as gdb shows a string: quoted, escaped, runs of
 * more than 10 equal bytes as `'x' <repeats 12 times>`; @more appends
 * `...` (the string goes on). */
void render_text(const uint8_t *s, size_t n, bool more, struct strbuf *out);
/* Print argument @a of type @t (NULL when unknown) as placeholder @spec
 * shows it: `{}` the value as render_value() shows it on its own, `{:x}`
 * and `{:p}` a number in hex (the bytes in hex for memory), `{:s}` text.
 * Returns false when the value could not be read at all (the text then
 * says why: `<optimized out>`, `<read error>`). */
bool render_arg(const struct ev_arg *a, enum ast_fmt_spec spec, const struct dw_type *t,
		const struct render_value_ctx *vc, struct strbuf *out);
/* A frame's variable of type @t (its bytes @data, @len, at @addr) as gdb's
 * bt shows it under `print frame-arguments scalars`, when it is or holds
 * the C++ standard library's values: a string whole (`"apple"`), a
 * container's head with its elements elided (`std::vector of length 3,
 * capacity 3 = {...}`), a struct holding them `...`; with vc->whole, as
 * print shows it, elements included.  What lies outside
 * the value is looked up in @mem (@n_mem WR_ARG_MEM copies: the stack
 * copy, what the probe copied).  False, with nothing written, for any
 * other value. */
bool render_frame_value(const struct dw_type *t, const uint8_t *data, size_t len, uint64_t addr,
			const struct ev_arg *mem, size_t n_mem, const struct render_value_ctx *vc,
			struct strbuf *out);
/* render_value() of a value inside another, without context. */
void render_typed_value(const struct dw_type *t, const uint8_t *data, size_t len, struct strbuf *out);

/* The same value as data spans in JSON's shape (a number, string, bool,
 * null, array, or object keyed by member name; see value_data.c), with no
 * shown text: for JSON writers. */
void render_value_data(const struct dw_type *t, const uint8_t *data, size_t len,
		       struct span_list *out);


#endif
