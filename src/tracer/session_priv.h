/* session_priv.h - the session's and the probes' insides.
 *
 * Layer rule: private to src/tracer/.  Front ends see struct session and
 * struct probe only through session.h and probe.h; everything a front end
 * needs has a function there, so these fields can change freely.
 */
#ifndef WRAITH_TRACER_SESSION_PRIV_H
#define WRAITH_TRACER_SESSION_PRIV_H

#include "dwarf/resolve.h"
#include "protocol/decode.h"
#include "render/render.h"
#include "script/ast.h"
#include "tracer/recover.h"
#include "tracer/session.h"
#include "util/diag.h"

/* Counters behind `diag` and `info probes`: of the backtraces that came
 * in events, and of the stacks `count bt` counted in the kernel (as of
 * the last session_read_counted()). */
struct probe_counts {
	uint64_t events;
	uint64_t backtraces;
	uint64_t by_status[WR_BT_STATUS_COUNT_];
	uint64_t by_error[WR_BTE_COUNT_];
	uint64_t counted;
	uint64_t counted_by_status[WR_BT_STATUS_COUNT_];
	uint64_t counted_by_error[WR_BTE_COUNT_];
};

struct fv_walk;
struct kernel_start;
struct rt_probe;
struct stack_cache;
struct runtime;
struct strbuf;
struct target;
struct tmodule;

struct probe_site {
	struct tmodule *mod;        /* borrowed from the target */
	struct dw_site where;       /* owned strings; where.vaddr is where the uprobe goes */
	uint64_t site_vaddr;        /* the site's own address (where.vaddr unless moved) */
	char *place_note;           /* owned: why the uprobe is not at site_vaddr, or NULL */
	bool refused;               /* the kernel refused its uprobe: never attached */
	uint64_t file_offset;
	uint32_t rule0;
	uint32_t wire_id;
	struct rt_probe *rt;        /* NULL when not loaded (dry run) */
	size_t bpf_insns;           /* instructions of the loaded program (0 if unknown) */
	/* What this site cannot give that others of the probe can, one
	 * "LINE:COL: why" line each (it prints a marker there); owned, NULL
	 * when it gives everything. */
	char *notes;
	/* The site compiles in no form (a statement other than a print
	 * argument cannot be had here): not attached, said at start. */
	bool dead;
	/* The types of the print arguments at this site, and the frame of
	 * those that read another frame's variable (owned); the probe's
	 * render info with them, as the renderer gets it for this site's
	 * events (sites of one probe may differ in both). */
	struct render_arg_type *args;
	size_t n_args, cap_args;
	struct render_probe render;
};

/* Where @site stands, for dw_var_find_at(): into @out, which is returned. */
struct dw_at;
const struct dw_at *probe_site_at(const struct probe_site *site, struct dw_at *out);

struct probe {
	unsigned id;
	char *target_text;          /* owned: the pattern as written */
	char *pattern;              /* owned: the pattern with wildcards it is one
				     * function of (`do_item_*`), or NULL */
	char *source;               /* owned: `trace PATTERN { BODY }` for save */
	struct ast_script *script;  /* owned: holds this probe only */
	const struct ast_probe *ast;/* borrowed from script */
	struct render_probe render;
	struct probe_site *sites;   /* owned */
	size_t n_sites;
	uint32_t gate;              /* the script that added it: its start gate */
	bool enabled;
	bool pending;               /* no library defines its function yet */
	struct probe_counts counts;
	struct stop_place *stops;   /* owned: where backtraces stopped early */
	size_t n_stops, cap_stops;
	struct render_arg_type *arg_types; /* owned: types of program values printed */
	size_t n_arg_types, cap_arg_types;
	char **count_keys;          /* owned: per `count bt`, its KEY as written or NULL */
	size_t n_count_keys;        /* the probe's `count bt` statements */
	char **skipped;             /* owned: each site no uprobe can go on, and why */
	size_t n_skipped;
	/* While session_load_sites() runs: the names looked up at the
	 * sites, each with the sites that have it (session_compile.c);
	 * owned, NULL otherwise. */
	struct site_names *names;
};

struct session {
	struct session_options opt;
	struct target *target;
	struct runtime *rt;
	struct codegen_cache *objects; /* owned: the probes' objects by shape */
	struct kernel_start *kstart; /* owned: the kernel side while it loads */
	int cfi_outer[2];       /* owned while it loads: the unwinder's arrays of maps,
				 * made before it (session_kernel.c), or -1 */
	struct probe **probes;      /* owned */
	size_t n_probes, cap_probes;
	unsigned next_probe_id;
	uint32_t scripts;           /* scripts added so far, each its gate number */
	uint32_t armed;             /* the scripts up to this one have started */
	struct { struct probe *probe; size_t site; } wire[WR_MAX_PROBES];
	uint32_t wire_next;         /* where the search for a free wire id starts */
	/* The PID namespace of process pidns.tgid (0: none asked yet), asked
	 * once for all the sites of a session rather than for each. */
	struct { uint32_t tgid; uint64_t dev, ino; } pidns;
	struct renderer renderer;
	struct event_decoder decoder;
	struct read_recovery recover; /* failed reads of read-only memory, made again */
	struct session_sink sink;
	struct span_list spans;     /* the event being rendered */
	struct wr_bt_frame *finished; /* owned: frames of a backtrace finished in userspace */
	struct fv_walk *frame_values; /* owned: the walk of frame values (bt args, full) */
	/* the recipes of outer frames written (session_hooks.c), a hash set
	 * by key (the hash of frames 0 to the frame's ips) with its root
	 * count */
	struct { uint64_t chain; uint32_t roots; } outer_done[256];
	/* the recipes in the kernel's table (WR_OUTER_RECIPES at most, or
	 * WRAITH_OUTER_RECIPES), by key, each with the tick of outer_clock at
	 * which an event last named it and its slot: a new or changed one
	 * goes in the spare slot, whose place the slot it replaces takes (of
	 * the least recently seen one when the table is full: wire.h); and
	 * the last keys evicted so (a ring), whose frames' values then say
	 * the table was full */
	struct { uint64_t chain, seen; uint32_t slot; bool pre; } outer_chains[1024];
	/* the recipes written now are written at attach (session_recipes.c):
	 * their entries' pre, until an event of their chain is read */
	bool outer_precomputing;
	size_t n_outer_chains;
	size_t outer_capacity;      /* 0 until the first recipe */
	uint32_t outer_spare;       /* the spare slot */
	uint64_t outer_evicted[1024];
	size_t n_outer_evicted;
	uint64_t outer_clock;       /* ticks once a recipe is named */
	size_t n_pending;           /* probes waiting for a library */
	size_t mods_seen;           /* target modules probes were followed into */
	uint64_t events;            /* rendered */
	uint64_t budget;            /* events this poll may still render (UINT64_MAX: all) */
	struct strbuf *backlog;     /* owned: raw events that arrived beyond the budget */
	size_t backlog_pos;         /* next unread byte of backlog */
	uint64_t backlog_dropped;   /* events dropped because the backlog was full */
	uint64_t malformed;
	uint64_t rate_limit;        /* events rendered per second at most (0: no limit) */
	double rate_window;         /* start of the current second */
	uint64_t rate_count;        /* events rendered in it */
	uint64_t suppressed;        /* events over the rate limit, not rendered */
	bool refresh_wanted;
	double last_refresh;
	struct stack_cache *stack_cache; /* owned: frames of counted stacks (stacks.c) */
	uint64_t stacks_since_ns;   /* wall clock when counting began (or was cleared) */
	uint64_t stacks_dropped_base; /* stacks not counted before the last clear */
	double counted_read_at;     /* when session_read_counted() last read (0: never) */
	/* WR_BASE_NO_*: what no probe of the session can reach (script mode:
	 * its one script); 0 where scripts can be added later. */
	unsigned base_omits;
	/* Script mode: session_options.only_script, parsed once by
	 * session_new() (to size the maps) for session_add_script(). */
	struct {
		char *text;              /* owned copy */
		struct ast_script *ast;  /* owned until taken */
		struct diag diag;        /* why it does not parse, with err */
		int err;
		bool taken;
	} only;
};

/* ---- probe.c: a probe's own bookkeeping ---- */

/* A probe numbered @id around @ast, which it takes over; no sites yet. */
struct probe *probe_new(unsigned id, struct ast_probe *ast);
/* Free @p and what it owns.  Its sites must be unloaded first.  NULL is a
 * no-op. */
void probe_free(struct probe *p);
/* Free what site @site owns (not its runtime program). */
void probe_site_release(struct probe_site *site);
/* Keep @text (taken over) among the sites of @p that cannot be probed. */
void probe_note_skipped(struct probe *p, char *text);
/* Wire argument @arg of print @print has program type @t (for rendering). */
void probe_note_arg_type(struct probe *p, unsigned print, unsigned arg, const struct dw_type *t,
			 struct dw_module *module);
/* Count @ev, rendered as @spans (NULL when it was not), in @p's counters
 * and stop places.
 * Returns true when a backtrace met an unknown module (the target's
 * mappings are then worth reading again). */
bool probe_count_event(struct probe *p, const struct event *ev, const struct span_list *spans);
/* True when counting @ev in @p needs it rendered (a backtrace that stopped
 * early at a place with no sample yet). */
bool probe_needs_text(const struct probe *p, const struct event *ev);

/* The wire's transport for a session's (session_types.h). */
enum wr_transport session_wire_transport(enum session_transport t);

/* ---- the kernel side (session_kernel.c) ---- */

/* Wait for the kernel side started by session_start() (starting it when
 * it was not) and install the target's mappings and unwind tables in it.
 * Returns 0 or a negative error (message logged); after an error the next
 * session_start() tries again. */
int session_kernel_wait(struct session *s);
/* The target did not open: wait for the kernel side started with it and
 * unload it unused. */
void session_kernel_abandon(struct session *s);

/* ---- the renderer's hooks (session_hooks.c) ---- */

struct render_hooks;
/* The hooks through which @s's renderer asks about probes, frames and
 * values (ctx is @s). */
void session_render_hooks(struct session *s, struct render_hooks *out);

/* ---- sites of a probe (session_sites.c, session_compile.c) ---- */

struct diag;
struct located_set;

/* Resolve, compile and load all sites of @p (attaching comes later, for
 * all probes of a script at once, so they start firing together).
 * Returns 0 or a negative error (a located one in @d, others in
 * @errors). */
int session_load_probe(struct session *s, struct probe *p, struct diag *d, struct strbuf *errors);
/* Attach @site (a dead one is left alone).  Returns 0 or a negative
 * error. */
int session_attach_site(struct session *s, struct probe_site *site);

/* Append the sites of @found to @p, taking their strings; @found is left
 * empty.  Returns how many were added. */
size_t session_add_sites(struct session *s, struct probe *p, struct located_set *found);
/* Compile and load sites @first.. of @p.  Returns 0 or a negative error
 * (a located one in @d, others in @errors). */
int session_load_sites(struct session *s, struct probe *p, size_t first, struct diag *d,
		       struct strbuf *errors);
/* Attach sites @first.. of @p.  Returns 0 or a negative error (in @errors). */
int session_attach_sites(struct session *s, struct probe *p, size_t first, struct strbuf *errors);
/* Before sites @first.. of @p attach (-p mode, a bt with frame values):
 * write the recipes of the frame-1 values its events will show that
 * can be known without an event (session_recipes.c). */
void session_precompute_recipes(struct session *s, struct probe *p, size_t first);
/* Whether recipes written before any event may take another entry of
 * the table: they take at most half of it (session_hooks.c). */
bool session_outer_room(struct session *s);
/* Unload and forget sites @first.. of @p. */
void session_drop_sites(struct session *s, struct probe *p, size_t first);

/* ---- libraries that come later (libprobes.c) ---- */

/* @err is what resolving @p found among the mapped modules.  For a
 * function none of them defines (-p mode) look for the library that does
 * where the process loads its own libraries from, and put @p there now
 * (@found filled, returns 0); or, with --pending, let @p wait (returns 1);
 * else return @err (with a hint on --pending in @d). */
int session_locate_unloaded(struct session *s, struct probe *p, struct located_set *found,
			    struct diag *d, int err);
/* Modules @first_mod.. of the target are new: give every function probe
 * (-p mode) sites in those of them that define its function, and so
 * place the pending ones. */
void session_follow_libraries(struct session *s, size_t first_mod);

/* ---- stacks.c: stacks counted in the kernel ---- */

void stack_cache_free(struct stack_cache *c);
/* A probe was added (counting may begin) / is going away (its counts too). */
void stacks_note_probe(struct session *s, const struct probe *p);
void stacks_forget_probe(struct session *s, const struct probe *p);
/* Delete what the sites of @p from @first on counted. */
void stacks_forget_sites(struct session *s, const struct probe *p, size_t first);

#endif
