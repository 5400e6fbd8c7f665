/* options.c - settings from defaults, the configuration file, the
 * environment and the command line (see options.h).
 *
 * Every setting is one row of `settings`: its flag, its configuration key
 * and environment variable, the TOML type its key takes, and a setter that
 * checks a value given as text and stores it.  A flag, a key and a
 * variable that mean the same therefore accept the same values and fail
 * with the same words.  Layers are applied oldest first, so a later one
 * overrides an earlier one simply by setting again; a list option is
 * replaced, not extended, by a later layer.
 */
#include "config.h"

#include "frontend/options.h"
#include "tracer/session.h"
#include "util/diag.h"
#include "util/editdist.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/toml.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The layer being applied, for list options (see cli_list.layer). */
static int layer_now;

/* ---- values ---- */

static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && *out <= max;
}

/* A boolean from a flag (@arg NULL: true) or a key ("true"/"false"). */
static int parse_bool(const char *arg, bool *out, struct strbuf *why)
{
	if (!arg || !strcmp(arg, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(arg, "false")) {
		*out = false;
		return 0;
	}
	strbuf_addstr(why, "expected true or false");
	return -1;
}

/* "~/x" is $HOME/x, as in a shell, so configuration files can say it. */
static const char *expand_home(struct cli_options *o, const char *path)
{
	const char *home = getenv("HOME");
	char *joined;
	const char *kept;

	if (path[0] != '~' || (path[1] && path[1] != '/') || !home)
		return cli_options_keep(o, path);
	joined = xasprintf("%s%s", home, path + 1);
	kept = cli_options_keep(o, joined);
	free(joined);
	return kept;
}

static void list_add(struct cli_options *o, struct cli_list *l, const char *s)
{
	if (l->layer != layer_now) {
		l->n = 0; /* a newer layer replaces the list */
		l->layer = layer_now;
	}
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = expand_home(o, s);
}

/* ---- setters: 0, or -1 with the reason in @why ---- */

#define SETTER(name) static int name(struct cli_options *o, const char *arg, struct strbuf *why)

SETTER(set_pid)
{
	unsigned long long v;

	if (!parse_uint(arg, INT_MAX, &v) || v == 0) {
		strbuf_addstr(why, "expected a positive number");
		return -1;
	}
	o->pid = (pid_t)v;
	return 0;
}

SETTER(set_target) { (void)why; o->path = cli_options_keep(o, arg); return 0; }
SETTER(set_script) { (void)why; o->script = cli_options_keep(o, arg); return 0; }
SETTER(set_script_file) { (void)why; o->script_file = cli_options_keep(o, arg); return 0; }
SETTER(set_batch) { (void)why; o->batch_file = cli_options_keep(o, arg); return 0; }
SETTER(set_complete) { (void)why; o->complete = cli_options_keep(o, arg); return 0; }
SETTER(set_config) { (void)why; o->config_file = cli_options_keep(o, arg); return 0; }
SETTER(set_log_file) { (void)why; o->log_file = expand_home(o, arg); return 0; }
SETTER(set_debug_file) { (void)why; o->debug_file = expand_home(o, arg); return 0; }
SETTER(set_keep_going) { return parse_bool(arg, &o->keep_going, why); }
SETTER(set_dry_run) { return parse_bool(arg, &o->dry_run, why); }
SETTER(set_relative) { return parse_bool(arg, &o->relative_time, why); }
SETTER(set_pending) { return parse_bool(arg, &o->pending, why); }
SETTER(set_status) { return parse_bool(arg, &o->status, why); }
SETTER(set_quiet) { return parse_bool(arg, &o->quiet, why); }
/* command line only: a configuration file must not turn off a safety */
SETTER(set_unsafe_paths) { return parse_bool(arg, &o->unsafe_paths, why); }
SETTER(set_help) { return parse_bool(arg, &o->help, why); }
SETTER(set_version) { return parse_bool(arg, &o->version, why); }
SETTER(set_loose) { return parse_bool(arg, &o->loose_debug_match, why); }
SETTER(set_fault_in) { return parse_bool(arg, &o->fault_in, why); }

SETTER(set_no_status)
{
	(void)arg;
	(void)why;
	o->status = false;
	return 0;
}

SETTER(set_verbose)
{
	int err = parse_bool(arg, &o->verbose, why);

	if (!err && o->verbose)
		o->log_level = WR_LOG_DEBUG;
	return err;
}

SETTER(set_output)
{
	int f = render_format_parse(arg);

	if (f < 0) {
		strbuf_addstr(why, "expected pretty, plain or json");
		return -1;
	}
	o->format = (enum render_format)f;
	return 0;
}

SETTER(set_color)
{
	if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never")) {
		strbuf_addstr(why, "expected auto, always or never");
		return -1;
	}
	o->color_mode = cli_options_keep(o, arg);
	return 0;
}

SETTER(set_max_events)
{
	unsigned long long v;

	if (!parse_uint(arg, ULLONG_MAX, &v) || v == 0) {
		strbuf_addstr(why, "expected a number >= 1");
		return -1;
	}
	o->max_events = v;
	return 0;
}

SETTER(set_timeout)
{
	char *end;

	errno = 0;
	o->timeout = strtod(arg, &end);
	if (errno || *end || end == arg || !(o->timeout > 0)) {
		strbuf_addstr(why, "expected seconds > 0");
		return -1;
	}
	return 0;
}

SETTER(set_depth)
{
	unsigned long long v;

	if (!parse_uint(arg, session_max_bt_depth(), &v) || v < 1) {
		strbuf_addf(why, "expected 1..%u", session_max_bt_depth());
		return -1;
	}
	o->bt_depth = (unsigned)v;
	return 0;
}

/* As gdb's `set print elements`: 0 is unlimited, which the probe's
 * walk bounds at session_max_print_elements(). */
SETTER(set_print_elements)
{
	unsigned long long v;

	if (!parse_uint(arg, session_max_print_elements(), &v)) {
		strbuf_addf(why, "expected 0..%u (0: as many as the probe can read)",
			    session_max_print_elements());
		return -1;
	}
	o->print_elements = v ? (unsigned)v : session_max_print_elements();
	return 0;
}

SETTER(set_print_depth)
{
	unsigned long long v;

	if (!parse_uint(arg, 1000, &v)) {
		strbuf_addstr(why, "expected 0..1000");
		return -1;
	}
	o->print_depth = (unsigned)v;
	return 0;
}

SETTER(set_transport)
{
	if (!strcmp(arg, "ringbuf"))
		o->transport = SESSION_TRANSPORT_RINGBUF;
	else if (!strcmp(arg, "perf"))
		o->transport = SESSION_TRANSPORT_PERF;
	else {
		strbuf_addstr(why, "expected ringbuf or perf");
		return -1;
	}
	return 0;
}

/* "64M", "512K", "1G" or plain bytes. */
static bool parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mult = 1;
	char *end;

	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	if (mult > 1)
		end++;
	if (errno || *end || v > (1ull << 40) / mult)
		return false;
	*out = v * mult;
	return true;
}

SETTER(set_buffer_size)
{
	unsigned long long v;

	if (!parse_size(arg, &v) || v < (64ull << 10) || v > (1ull << 30)) {
		strbuf_addstr(why, "expected 64K..1G, e.g. 64M");
		return -1;
	}
	o->buffer_bytes = v;
	return 0;
}

SETTER(set_stack_entries)
{
	unsigned long long v;

	if (!parse_uint(arg, 1u << 24, &v) || v < 16) {
		strbuf_addf(why, "expected 16..%u", 1u << 24);
		return -1;
	}
	o->stack_entries = (uint32_t)v;
	return 0;
}

SETTER(set_folded) { (void)why; o->folded_file = cli_options_keep(o, arg); return 0; }
SETTER(set_pprof) { (void)why; o->pprof_file = cli_options_keep(o, arg); return 0; }

/* GhostScope's switch for the same choice. */
SETTER(set_force_perf)
{
	bool on;

	if (parse_bool(arg, &on, why))
		return -1;
	o->transport = on ? SESSION_TRANSPORT_PERF : SESSION_TRANSPORT_RINGBUF;
	return 0;
}

SETTER(set_log_level)
{
	static const char *const names[] = { "error", "warn", "info", "debug", "trace" };

	for (int i = 0; i < 5; i++) {
		if (!strcmp(arg, names[i])) {
			o->log_level = i < WR_LOG_DEBUG ? i : WR_LOG_DEBUG; /* trace is debug */
			return 0;
		}
	}
	strbuf_addstr(why, "expected error, warn, info, debug or trace");
	return -1;
}

SETTER(set_rate)
{
	unsigned long long v;

	if (!parse_uint(arg, LLONG_MAX, &v)) {
		strbuf_addstr(why, "expected events per second (0: no limit)");
		return -1;
	}
	o->events_per_sec = (long long)v;
	return 0;
}

SETTER(set_debug_dir)
{
	(void)why;
	list_add(o, &o->debug_dirs, arg);
	return 0;
}

SETTER(set_debuginfod)
{
	bool on;

	/* "ask" is GhostScope's reserved value; wraith does not ask. */
	if (!strcmp(arg, "on") || !strcmp(arg, "ask"))
		o->debuginfod = !strcmp(arg, "on") ? CLI_DEBUGINFOD_ON : CLI_DEBUGINFOD_ASK;
	else if (!strcmp(arg, "off"))
		o->debuginfod = CLI_DEBUGINFOD_OFF;
	else if (parse_bool(arg, &on, why) == 0)
		o->debuginfod = on ? CLI_DEBUGINFOD_ON : CLI_DEBUGINFOD_OFF;
	else {
		strbuf_reset(why);
		strbuf_addstr(why, "expected on, off or ask");
		return -1;
	}
	return 0;
}

/* One URL, or (from DEBUGINFOD_URLS) several separated by blanks. */
SETTER(set_debuginfod_url)
{
	char *copy = xstrdup(arg);

	(void)why;
	for (char *u = strtok(copy, " \t\n"); u; u = strtok(NULL, " \t\n"))
		list_add(o, &o->debuginfod_urls, u);
	free(copy);
	return 0;
}

SETTER(set_debuginfod_cache) { (void)why; o->debuginfod_cache = expand_home(o, arg); return 0; }

SETTER(set_probe_cache)
{
	bool on;

	if (!strcmp(arg, "on") || !strcmp(arg, "off"))
		o->probe_cache = !strcmp(arg, "on");
	else if (parse_bool(arg, &on, why) == 0)
		o->probe_cache = on;
	else {
		strbuf_reset(why);
		strbuf_addstr(why, "expected on or off");
		return -1;
	}
	return 0;
}

/* Relative to the directory wraith starts in. */
SETTER(set_probe_cache_dir)
{
	char cwd[PATH_MAX], *joined;

	if (arg[0] == '/' || arg[0] == '~') {
		o->probe_cache_dir = expand_home(o, arg);
		return 0;
	}
	if (!*arg || !getcwd(cwd, sizeof(cwd))) {
		strbuf_addstr(why, "expected a directory");
		return -1;
	}
	joined = xasprintf("%s/%s", cwd, arg);
	o->probe_cache_dir = cli_options_keep(o, joined);
	free(joined);
	return 0;
}

SETTER(set_debuginfod_timeout)
{
	if (!parse_uint(arg, 86400, &o->debuginfod_timeout)) {
		strbuf_addstr(why, "expected seconds 0..86400 (0: no timeout)");
		return -1;
	}
	return 0;
}

SETTER(set_debuginfod_max_size)
{
	if (!parse_uint(arg, LLONG_MAX, &o->debuginfod_max_size)) {
		strbuf_addstr(why, "expected a size in bytes (0: no cap)");
		return -1;
	}
	return 0;
}

/* ---- the table ---- */

struct setting {
	const char *flag;           /* --flag, or NULL */
	int letter;                 /* -x, or 0 */
	bool takes_arg;
	const char *key;            /* "section.key" in the config file, or NULL */
	enum toml_type type;        /* what the key takes */
	const char *env;            /* environment variable, or NULL */
	int (*set)(struct cli_options *o, const char *arg, struct strbuf *why);
	size_t list;                /* list settings: offsetof their struct cli_list */
};

static const struct setting settings[] = {
	{ "pid", 'p', true, NULL, 0, NULL, set_pid },
	{ "target", 't', true, NULL, 0, NULL, set_target },
	{ "script", 's', true, NULL, 0, NULL, set_script },
	{ "script-file", 0, true, NULL, 0, NULL, set_script_file },
	{ "batch", 0, true, NULL, 0, NULL, set_batch },
	{ "keep-going", 0, false, NULL, 0, NULL, set_keep_going },
	{ "dry-run", 0, false, NULL, 0, NULL, set_dry_run },
	{ "config", 0, true, NULL, 0, NULL, set_config },
	{ "script-output", 0, true, "script.output", TOML_STRING, NULL, set_output },
	{ "color", 0, true, "script.color", TOML_STRING, NULL, set_color },
	{ "relative-time", 0, false, NULL, 0, NULL, set_relative },
	{ "script-output-events-per-sec", 0, true, "script.output_events_per_sec", TOML_INT, NULL,
	  set_rate },
	{ "status", 0, false, "script.status", TOML_BOOL, NULL, set_status },
	{ "no-status", 0, false, NULL, 0, NULL, set_no_status },
	{ "max-events", 0, true, NULL, 0, NULL, set_max_events },
	{ "timeout", 0, true, NULL, 0, NULL, set_timeout },
	{ "backtrace-depth", 0, true, "ebpf.backtrace_depth", TOML_INT, NULL, set_depth },
	{ "print-elements", 0, true, "script.print_elements", TOML_INT, NULL, set_print_elements },
	{ "print-depth", 0, true, "script.print_depth", TOML_INT, NULL, set_print_depth },
	{ "pending", 0, false, "script.pending", TOML_BOOL, NULL, set_pending },
	{ "transport", 0, true, "ebpf.transport", TOML_STRING, NULL, set_transport },
	{ "force-perf-event-array", 0, false, "ebpf.force_perf_event_array", TOML_BOOL, NULL,
	  set_force_perf },
	{ "fault-in", 0, false, "ebpf.fault_in", TOML_BOOL, NULL, set_fault_in },
	{ "buffer-size", 0, true, "ebpf.ringbuf_size", TOML_INT, NULL, set_buffer_size },
	{ "stack-entries", 0, true, "ebpf.stack_entries", TOML_INT, NULL, set_stack_entries },
	{ "folded", 0, true, NULL, 0, NULL, set_folded },
	{ "pprof", 0, true, NULL, 0, NULL, set_pprof },
	{ "debug-file", 'd', true, NULL, 0, NULL, set_debug_file },
	{ "allow-loose-debug-match", 0, false, "dwarf.allow_loose_debug_match", TOML_BOOL, NULL,
	  set_loose },
	{ "debug-dir", 0, true, "dwarf.search_paths", TOML_ARRAY,
	  NULL, set_debug_dir, offsetof(struct cli_options, debug_dirs) },
	{ "debuginfod", 0, true, "dwarf.debuginfod.enabled", TOML_STRING, NULL, set_debuginfod },
	{ "debuginfod-url", 0, true, "dwarf.debuginfod.urls", TOML_ARRAY, "DEBUGINFOD_URLS",
	  set_debuginfod_url, offsetof(struct cli_options, debuginfod_urls) },
	{ "debuginfod-cache-dir", 0, true, "dwarf.debuginfod.cache_dir", TOML_STRING,
	  "DEBUGINFOD_CACHE_PATH", set_debuginfod_cache },
	{ "debuginfod-timeout-secs", 0, true, "dwarf.debuginfod.timeout_secs", TOML_INT,
	  "DEBUGINFOD_TIMEOUT", set_debuginfod_timeout },
	{ "debuginfod-max-size", 0, true, "dwarf.debuginfod.max_size_bytes", TOML_INT,
	  "DEBUGINFOD_MAXSIZE", set_debuginfod_max_size },
	{ "probe-cache", 0, true, "ebpf.probe_cache", TOML_BOOL, "WRAITH_PROBE_CACHE",
	  set_probe_cache },
	{ "probe-cache-dir", 0, true, "ebpf.probe_cache_dir", TOML_STRING, "WRAITH_PROBE_CACHE_DIR",
	  set_probe_cache_dir },
	{ "verbose", 'v', false, NULL, 0, NULL, set_verbose },
	{ "log-level", 0, true, "general.log_level", TOML_STRING, NULL, set_log_level },
	{ "log-file", 0, true, "general.log_file", TOML_STRING, NULL, set_log_file },
	{ "quiet", 'q', false, NULL, 0, NULL, set_quiet },
	{ "unsafe-paths", 0, false, NULL, 0, NULL, set_unsafe_paths },
	{ "help", 'h', false, NULL, 0, NULL, set_help },
	{ "version", 'V', false, NULL, 0, NULL, set_version },
	/* Not in --help: the bash completion script asks it (see wraith(1)). */
	{ "complete", 0, true, NULL, 0, NULL, set_complete },
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* GhostScope's keys that have no meaning in wraith: a GhostScope
 * configuration still loads, and the user is told what was skipped. */
static const char *const foreign_keys[] = {
	"general.default_tui_mode", "general.enable_logging", "general.enable_console_logging",
	"script.timestamp",
	"value_adapters.max_nesting_depth", "value_adapters.max_sequence_elements",
	"files.save_llvm_ir", "files.save_ebpf", "files.save_ast",
	"ui.layout", "ui.default_focus", "ui.show_source_panel", "ui.panel_ratios",
	"ui.two_panel_ratios", "ui.ebpf_max_messages", "ui.history.enabled",
	"ui.history.max_entries", "ui.realtime_logging.output_dir",
	"ui.realtime_logging.filename_prefix",
	"ebpf.perf_page_count", "ebpf.proc_module_offsets_max_entries",
	"ebpf.mem_dump_cap", "ebpf.compare_cap", "ebpf.max_trace_event_size",
	"ebpf.backtrace_unwind_rows_max_entries", "ebpf.enable_sysmon_for_target",
	"source.substitutions", "source.search_dirs",
	NULL,
};

/* ---- owned strings ---- */

const char *cli_options_keep(struct cli_options *o, const char *s)
{
	o->owned = xgrow(o->owned, &o->cap_owned, o->n_owned + 1, sizeof(*o->owned));
	o->owned[o->n_owned] = xstrdup(s);
	return o->owned[o->n_owned++];
}

void cli_options_release(struct cli_options *o)
{
	for (size_t i = 0; i < o->n_owned; i++)
		free(o->owned[i]);
	free(o->owned);
	free(o->debug_dirs.v);
	free(o->debuginfod_urls.v);
	o->owned = NULL;
	o->n_owned = o->cap_owned = 0;
	o->debug_dirs = (struct cli_list){ 0 };
	o->debuginfod_urls = (struct cli_list){ 0 };
}

/* ---- the configuration file ---- */

static const struct setting *setting_by_key(const char *table, const char *key)
{
	size_t lt = strlen(table);

	for (size_t i = 0; i < N_SETTINGS; i++) {
		const char *k = settings[i].key;

		if (k && !strncmp(k, table, lt) && k[lt] == '.' && !strcmp(k + lt + 1, key))
			return &settings[i];
	}
	return NULL;
}

static bool is_foreign(const char *table, const char *key)
{
	size_t lt = strlen(table);

	for (size_t i = 0; foreign_keys[i]; i++) {
		const char *k = foreign_keys[i];

		if (!strncmp(k, table, lt) && k[lt] == '.' && !strcmp(k + lt + 1, key))
			return true;
	}
	return false;
}

/* Does any known key live in @table (or in a table below it)? */
static bool known_table(const char *table)
{
	size_t lt = strlen(table);

	for (size_t i = 0; i < N_SETTINGS; i++)
		if (settings[i].key && !strncmp(settings[i].key, table, lt) && settings[i].key[lt] == '.')
			return true;
	for (size_t i = 0; foreign_keys[i]; i++)
		if (!strncmp(foreign_keys[i], table, lt) && foreign_keys[i][lt] == '.')
			return true;
	return false;
}

/* "did you mean [ebpf] backtrace_depth?" for a key close to a known one. */
static char *suggest_key(const char *table, const char *key)
{
	char *full = *table ? xasprintf("%s.%s", table, key) : xstrdup(key), *hint = NULL;
	size_t best = 3;

	for (size_t i = 0; i < N_SETTINGS; i++) {
		const char *k = settings[i].key, *dot;
		size_t d;

		if (!k)
			continue;
		d = edit_distance(full, strlen(full), k, strlen(k), 2);
		if (d < best) {
			best = d;
			dot = strrchr(k, '.');
			free(hint);
			hint = xasprintf("did you mean `%s` in [%.*s]?", dot + 1, (int)(dot - k), k);
		}
	}
	free(full);
	return hint;
}

/* Check the type of @e's value and hand it to the setter as text (an
 * array item by item).  Returns 0 or -EINVAL with the reason in @d. */
static int apply_value(struct cli_options *o, const struct setting *st, const struct toml_entry *e,
		       struct diag *d)
{
	const struct toml_value *v = &e->value;
	struct strbuf why = STRBUF_INIT;
	char num[32];
	int err = 0;

	if (v->type != st->type || (v->type == TOML_ARRAY && v->n && v->elem != TOML_STRING)) {
		struct toml_value want = { .type = st->type, .elem = TOML_STRING, .n = 1 };

		diag_set(d, v->loc, NULL, "`%s` takes %s, not %s", e->key, toml_value_kind(&want),
			 toml_value_kind(v));
		return -EINVAL;
	}
	if (v->type == TOML_ARRAY) {
		struct cli_list *l = (struct cli_list *)((char *)o + st->list);

		l->n = 0; /* an empty array empties the list */
		l->layer = layer_now;
		for (size_t i = 0; i < v->n && !err; i++)
			err = st->set(o, v->items[i].str, &why);
	} else if (v->type == TOML_INT) {
		snprintf(num, sizeof(num), "%lld", (long long)v->i);
		err = st->set(o, num, &why);
	} else {
		err = st->set(o, v->type == TOML_BOOL ? (v->b ? "true" : "false") : v->str, &why);
	}
	if (err)
		diag_set(d, v->loc, NULL, "invalid `%s`: %s", e->key, why.buf);
	strbuf_release(&why);
	return err ? -EINVAL : 0;
}

static int apply_entry(struct cli_options *o, const struct toml_entry *e, struct diag *d,
		       struct strbuf *ignored)
{
	const struct setting *st;
	char *hint;

	if (!e->key) {
		if (known_table(e->table))
			return 0;
		diag_set(d, e->loc, "sections are [general], [script], [dwarf], [dwarf.debuginfod] "
			 "and [ebpf]; see wraith(1)", "unknown section [%s]", e->table);
		return -EINVAL;
	}
	st = setting_by_key(e->table, e->key);
	if (st)
		return apply_value(o, st, e, d);
	if (is_foreign(e->table, e->key)) {
		strbuf_addf(ignored, "%s%s.%s", ignored->len ? ", " : "", e->table, e->key);
		return 0;
	}
	hint = suggest_key(e->table, e->key);
	diag_set(d, e->loc, hint ? hint : "wraith(1) lists the keys", "unknown key `%s` in %s%s%s",
		 e->key, *e->table ? "[" : "the top level", e->table, *e->table ? "]" : "");
	free(hint);
	return -EINVAL;
}

int cli_options_apply_config(struct cli_options *o, const char *file, const char *text,
			     struct strbuf *err, struct strbuf *ignored)
{
	struct toml_doc doc = { 0 };
	struct diag d = { 0 };
	int rc = toml_parse(text, &doc, &d);

	layer_now = CLI_LAYER_FILE;
	for (size_t i = 0; !rc && i < doc.n; i++)
		rc = apply_entry(o, &doc.v[i], &d, ignored);
	if (rc)
		diag_render(&d, file, text, err);
	diag_release(&d);
	toml_doc_release(&doc);
	return rc;
}

/* ---- the four layers ---- */

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("wraith: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'wraith --help' for more information.\n", stderr);
	return 2;
}

static void set_defaults(struct cli_options *o)
{
	o->format = RENDER_PRETTY;
	o->transport = SESSION_TRANSPORT_RINGBUF;
	o->log_level = -1;
	o->events_per_sec = -1;
	o->debuginfod_timeout = 5;
	o->probe_cache = true;
	o->print_elements = 200;
	o->print_depth = 20;
}

/* The probe cache's place when no setting gave one: under
 * $XDG_CACHE_HOME, else ~/.cache.  Root's is always under root's home
 * from the password database: under `sudo -E` $HOME is the user's, and
 * root would otherwise fill the user's home with root's files. */
static void default_probe_cache_dir(struct cli_options *o)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct passwd *pw;
	char *dir = NULL;

	if (geteuid() == 0) {
		pw = getpwuid(0);
		if (pw && pw->pw_dir && pw->pw_dir[0] == '/')
			dir = xasprintf("%s/.cache/wraith/probes", strcmp(pw->pw_dir, "/") ? pw->pw_dir : "");
	} else if (xdg && xdg[0] == '/') {
		dir = xasprintf("%s/wraith/probes", xdg);
	} else if (home && home[0] == '/') {
		dir = xasprintf("%s/.cache/wraith/probes", home);
	}
	if (dir)
		o->probe_cache_dir = cli_options_keep(o, dir);
	free(dir);
}

/* The value of --config in @argv, if any (before getopt sees the rest). */
static const char *config_arg(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			return argv[i + 1];
		if (!strncmp(argv[i], "--config=", 9))
			return argv[i] + 9;
	}
	return NULL;
}

static char *default_config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/wraith/config.toml", xdg);
	return home ? xasprintf("%s/.config/wraith/config.toml", home) : NULL;
}

/* The file layer.  A missing default file is no error; a missing --config is. */
static int load_config(struct cli_options *o, const char *given, struct strbuf *ignored)
{
	char *path = given ? xstrdup(given) : default_config_path(), *text = NULL;
	struct strbuf err = STRBUF_INIT;
	int rc = 0, e = path ? file_read(path, &text, NULL) : -ENOENT;

	/* The default file may be missing, or out of reach of this user. */
	if (e && (given || (e != -ENOENT && e != -EACCES && e != -ENOTDIR))) {
		fprintf(stderr, "wraith: cannot read configuration file %s: %s\n", path, strerror(-e));
		rc = 2;
	} else if (!e && cli_options_apply_config(o, path, text, &err, ignored)) {
		fputs(err.buf, stderr);
		rc = 2;
	}
	if (!e && !rc)
		o->config_file = cli_options_keep(o, path);
	strbuf_release(&err);
	free(text);
	free(path);
	return rc;
}

static int load_env(struct cli_options *o)
{
	struct strbuf why = STRBUF_INIT;
	int rc = 0;

	layer_now = CLI_LAYER_ENV;
	for (size_t i = 0; i < N_SETTINGS && !rc; i++) {
		const char *v = settings[i].env ? getenv(settings[i].env) : NULL;

		if (v && *v && settings[i].set(o, v, &why))
			rc = cli_usage_error("invalid %s '%s' in the environment: %s", settings[i].env, v,
					 why.buf);
	}
	strbuf_release(&why);
	return rc;
}

/* getopt's own complaint, in wraith's words: the option as typed (a long
 * one without its "=value"), never the path of the binary. */
static int getopt_error(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	int len = (int)strcspn(arg, "=");

	if (optopt && !(arg[0] == '-' && arg[1] == '-'))
		return cli_usage_error(c == ':' ? "option '-%c' needs a value" : "unknown option '-%c'", optopt);
	for (size_t i = 0; arg[len] == '=' && i < N_SETTINGS; i++) {
		const char *flag = settings[i].flag;

		if (flag && !settings[i].takes_arg && (int)strlen(flag) == len - 2 &&
		    strncmp(flag, arg + 2, (size_t)len - 2) == 0)
			return cli_usage_error("option '%.*s' takes no value", len, arg);
	}
	return cli_usage_error(c == ':' ? "option '%.*s' needs a value" : "unknown or ambiguous option '%.*s'",
			   len, arg);
}

/* getopt's tables from the settings; the short options' string starts
 * with ':' so a missing value is told apart from an unknown option. */
static void build_getopt(struct option *longs, char *shorts)
{
	size_t k = 0;

	shorts[k++] = ':';
	for (size_t i = 0; i < N_SETTINGS; i++) {
		longs[i] = (struct option){ settings[i].flag, settings[i].takes_arg ? required_argument
					    : no_argument, NULL, (int)(256 + i) };
		if (settings[i].letter) {
			shorts[k++] = (char)settings[i].letter;
			if (settings[i].takes_arg)
				shorts[k++] = ':';
		}
	}
	longs[N_SETTINGS] = (struct option){ 0 };
	shorts[k] = '\0';
}

static const struct setting *setting_by_code(int c)
{
	if (c >= 256 && c < 256 + (int)N_SETTINGS)
		return &settings[c - 256];
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (settings[i].letter == c)
			return &settings[i];
	return NULL;
}

static int load_args(int argc, char **argv, struct cli_options *o)
{
	struct option longs[N_SETTINGS + 1];
	char shorts[2 * N_SETTINGS + 3];
	struct strbuf why = STRBUF_INIT;
	int c, rc = 0;

	layer_now = CLI_LAYER_ARGS;
	build_getopt(longs, shorts);
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct setting *st = setting_by_code(c);

		if (!st)
			rc = getopt_error(c, argv);
		else if (st->set(o, optarg, &why))
			rc = st->letter == 'p' ? cli_usage_error("invalid PID '%s': %s", optarg, why.buf)
			     : cli_usage_error("invalid --%s '%s': %s", st->flag, optarg, why.buf);
	}
	if (!rc && optind < argc)
		rc = cli_usage_error("unexpected argument '%s'", argv[optind]);
	strbuf_release(&why);
	return rc;
}

int cli_options_parse(int argc, char **argv, struct cli_options *o)
{
	struct strbuf ignored = STRBUF_INIT;
	int rc;

	set_defaults(o);
	rc = load_config(o, config_arg(argc, argv), &ignored);
	if (!rc)
		rc = load_env(o);
	if (!rc)
		rc = load_args(argc, argv, o);
	/* The verifier refuses a perf event array in a sleepable program. */
	if (!rc && o->fault_in && o->transport == SESSION_TRANSPORT_PERF)
		rc = cli_usage_error("--fault-in (ebpf.fault_in) needs the ring buffer transport: the "
				     "kernel lets no sleepable program write to a perf event array; drop "
				     "--transport perf or --force-perf-event-array");
	if (!rc && !o->probe_cache)
		o->probe_cache_dir = NULL;
	else if (!rc && !o->probe_cache_dir)
		default_probe_cache_dir(o);
	if (!rc && ignored.len && !o->quiet && !o->help && !o->version)
		fprintf(stderr, "wraith: %s: ignoring GhostScope settings that wraith does not have: "
			"%s\n", o->config_file, ignored.buf);
	strbuf_release(&ignored);
	return rc;
}
