/* command.c - the command interpreter (see command.h).
 *
 * A table names every command with its aliases, usage and one-line
 * summary; `help`, completion and the usage line of a failing command all
 * come from that table, so they cannot drift from what the commands do.
 * `info` topics live in info.c, `diag` in diag.c.
 */
#include "tracer/command.h"
#include "render/stacks.h"
#include "tracer/info.h"
#include "tracer/scope.h"
#include "tracer/session.h"
#include "util/error.h"
#include "util/safefile.h"
#include "util/strbuf.h"
#include "util/textfile.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 8

struct words {
	char *v[MAX_WORDS];
	size_t n;
	char *buf; /* owned */
};

struct command {
	const char *name;
	const char *alias;
	const char *usage;
	const char *summary;
	void (*run)(struct session *s, const struct words *w, const char *line, const char *file,
		    struct strbuf *out, struct cmd_result *res);
};

static const struct command commands[];

void cmd_result_release(struct cmd_result *r)
{
	free(r->edit_target);
	r->edit_target = NULL;
}

/* A copy of the @n bytes at @text without the blanks around them. */
static char *trimmed_n(const char *text, size_t n)
{
	while (n && isspace((unsigned char)*text))
		text++, n--;
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	return xstrndup(text, n);
}

static char *trimmed(const char *text)
{
	return trimmed_n(text, strlen(text));
}

static void split_words(const char *line, struct words *w)
{
	char *p;

	memset(w, 0, sizeof(*w));
	w->buf = xstrdup(line);
	for (p = strtok(w->buf, " \t\r\n"); p && w->n < MAX_WORDS; p = strtok(NULL, " \t\r\n"))
		w->v[w->n++] = p;
}

static void fail(struct cmd_result *res, struct strbuf *out, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(struct cmd_result *res, struct strbuf *out, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(out, fmt, ap);
	va_end(ap);
	strbuf_addch(out, '\n');
	res->status = CMD_FAILED;
	res->err = err;
}

static void usage(const struct command *c, struct cmd_result *res, struct strbuf *out)
{
	fail(res, out, -WR_EUSAGE, "usage: %s", c->usage);
}

/* A command by name or short form, else by a prefix of one name only, as
 * gdb takes them (`inf` for info); NULL when none or several match (then
 * *@several is set, if not NULL). */
static const struct command *lookup_command(const char *name, bool *several)
{
	const struct command *found = NULL;
	size_t len = strlen(name);

	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0))
			return c;
	for (const struct command *c = commands; len && c->name; c++) {
		if (strncmp(c->name, name, len) != 0)
			continue;
		if (found) {
			if (several)
				*several = true;
			return NULL;
		}
		found = c;
	}
	return found;
}

static const struct command *find_command(const char *name)
{
	return lookup_command(name, NULL);
}

/* "delete, diag, disable": the commands @prefix begins. */
static void commands_begun(const char *prefix, struct strbuf *out)
{
	const char *sep = "";

	for (const struct command *c = commands; c->name; c++) {
		if (strncmp(c->name, prefix, strlen(prefix)) == 0) {
			strbuf_addf(out, "%s%s", sep, c->name);
			sep = ", ";
		}
	}
}

/* ---- probes ---- */

static void report_added(struct session *s, const unsigned *ids, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		struct probe *p = session_probe(s, ids[i]);

		if (p)
			session_describe_probe(s, p, out);
	}
}

static void add_script(struct session *s, const char *text, const char *file, struct strbuf *out,
		       struct cmd_result *res)
{
	unsigned ids[64];
	size_t n = 0;
	int err = session_start(s);

	if (!err)
		err = session_add_script(s, text, file, out, ids, 64, &n);
	if (err) {
		res->status = CMD_FAILED;
		res->err = err;
		return;
	}
	res->first_added = n ? ids[0] : 0;
	report_added(s, ids, n, out);
}

static void cmd_trace(struct session *s, const struct words *w, const char *line, const char *file,
		      struct strbuf *out, struct cmd_result *res)
{
	const char *start = line, *rest;
	char *text;

	while (isspace((unsigned char)*start))
		start++;
	rest = start + strcspn(start, " \t\n"); /* after the command word (trace or t) */
	if (w->n < 2) {
		usage(find_command("trace"), res, out);
		return;
	}
	if (!strchr(rest, '{')) {
		res->status = CMD_EDIT;
		res->edit_target = xstrdup(w->v[1]);
		return;
	}
	/* Keep what precedes the command (newlines of a batch file) so script
	 * errors carry the lines and columns of the original text. */
	text = xasprintf("%.*strace%s", (int)(start - line), line, rest);
	add_script(s, text, file ? file : "<command>", out, res);
	free(text);
}

/* Apply @fn to every probe, newest first; by id, since @fn may delete. */
static void for_all_probes(struct session *s, struct strbuf *out,
			   int (*fn)(struct session *s, struct probe *p, struct strbuf *out))
{
	unsigned *ids = xcalloc(session_probe_count(s) + 1, sizeof(*ids));
	size_t n = 0;
	struct probe *p;

	session_for_each_probe(p, s)
		ids[n++] = probe_id(p);
	while (n-- > 0)
		fn(s, session_probe(s, ids[n]), out);
	free(ids);
}

/* Apply @fn to probe ID or to all probes. */
static void for_probes(struct session *s, const struct words *w, const struct command *c,
		       struct strbuf *out, struct cmd_result *res,
		       int (*fn)(struct session *s, struct probe *p, struct strbuf *out))
{
	char *end;
	unsigned long id;
	struct probe *p;

	if (w->n != 2) {
		usage(c, res, out);
		return;
	}
	if (strcmp(w->v[1], "all") == 0) {
		for_all_probes(s, out, fn);
		return;
	}
	id = strtoul(w->v[1], &end, 10);
	if (*end || !id) {
		usage(c, res, out);
		return;
	}
	p = session_probe(s, (unsigned)id);
	if (!p) {
		fail(res, out, -WR_ECOMMAND, "no probe %lu; `info probes` lists them", id);
		return;
	}
	if (fn(s, p, out))
		fail(res, out, -WR_EATTACH, "probe %lu could not be changed", id);
}

static int do_enable(struct session *s, struct probe *p, struct strbuf *out)
{
	int err = session_enable(s, p, true);

	if (!err)
		strbuf_addf(out, "probe %u enabled\n", probe_id(p));
	return err;
}

static int do_disable(struct session *s, struct probe *p, struct strbuf *out)
{
	int err = session_enable(s, p, false);

	if (!err)
		strbuf_addf(out, "probe %u disabled\n", probe_id(p));
	return err;
}

static int do_delete(struct session *s, struct probe *p, struct strbuf *out)
{
	strbuf_addf(out, "probe %u deleted\n", probe_id(p));
	session_delete(s, p);
	return 0;
}

static void cmd_enable(struct session *s, const struct words *w, const char *line, const char *file,
		       struct strbuf *out, struct cmd_result *res)
{
	for_probes(s, w, find_command("enable"), out, res, do_enable);
}

/* `disable all` and `delete all` close every link in one batch first:
 * each close waits for the kernel, and closed together they share the
 * wait (one probe at a time, 1,000 probes took about a minute). */
static void detach_if_all(struct session *s, const struct words *w)
{
	if (w->n == 2 && strcmp(w->v[1], "all") == 0)
		session_detach_all(s);
}

static void cmd_disable(struct session *s, const struct words *w, const char *line, const char *file,
			struct strbuf *out, struct cmd_result *res)
{
	detach_if_all(s, w);
	for_probes(s, w, find_command("disable"), out, res, do_disable);
}

static void cmd_delete(struct session *s, const struct words *w, const char *line, const char *file,
		       struct strbuf *out, struct cmd_result *res)
{
	detach_if_all(s, w);
	for_probes(s, w, find_command("delete"), out, res, do_delete);
}

/* ---- settings, files ---- */

static void cmd_set(struct session *s, const struct words *w, const char *line, const char *file,
		    struct strbuf *out, struct cmd_result *res)
{
	char *end;
	unsigned long v;

	if (w->n == 3 && strcmp(w->v[1], "pending") == 0 &&
	    (strcmp(w->v[2], "on") == 0 || strcmp(w->v[2], "off") == 0)) {
		session_set_pending(s, strcmp(w->v[2], "on") == 0);
		strbuf_addf(out, "pending is %s: a probe on a function no library defines yet %s\n",
			    w->v[2], strcmp(w->v[2], "on") == 0 ? "waits for one" : "is an error");
		return;
	}
	if (w->n != 3 || strcmp(w->v[1], "backtrace-depth") != 0) {
		usage(find_command("set"), res, out);
		return;
	}
	v = strtoul(w->v[2], &end, 10);
	if (*end || session_set_bt_depth(s, (unsigned)v)) {
		fail(res, out, -WR_EUSAGE, "backtrace-depth must be 1..%u (got '%s')",
		     session_max_bt_depth(), w->v[2]);
		return;
	}
	strbuf_addf(out, "backtrace-depth is %lu for probes added from now on\n", v);
}

/* `save [-f] FILE`: root writes here, so the file is replaced the safe way
 * (see util/safefile.h); -f writes through links and other users' files. */
static void cmd_save(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	bool force = w->n == 3 && strcmp(w->v[1], "-f") == 0;
	const char *path = w->v[w->n - 1];
	int err;

	if (w->n != 2 && !force) {
		usage(find_command("save"), res, out);
		return;
	}
	session_save(s, &text);
	err = safe_file_replace(path, text.buf, text.len, 0644, force ? SAFE_FILE_FORCE : 0, &why);
	if (err == -WR_EUNSAFE)
		fail(res, out, err, "refusing to write %s: %s\nhint: write it elsewhere, or use "
		     "`save -f %s` to write it anyway", path, why.buf, path);
	else if (err)
		fail(res, out, err, "cannot write %s: %s", path, why.buf);
	else
		strbuf_addf(out, "saved %zu probe%s to %s\n", session_probe_count(s),
			    session_probe_count(s) == 1 ? "" : "s", path);
	strbuf_release(&why);
	strbuf_release(&text);
}

static void cmd_source(struct session *s, const struct words *w, const char *line, const char *file,
		       struct strbuf *out, struct cmd_result *res)
{
	struct strbuf why = STRBUF_INIT;
	char *text = NULL;
	int err;

	if (w->n != 2) {
		usage(find_command("source"), res, out);
		return;
	}
	err = text_file_read(w->v[1], TEXT_FILE_MAX, &text, &why);
	if (err == -WR_ESYNTAX)
		fail(res, out, err, "%s", why.buf);
	else if (err)
		fail(res, out, err, "cannot read %s: %s", w->v[1], why.buf);
	strbuf_release(&why);
	if (err)
		return;
	add_script(s, text, w->v[1], out, res);
	free(text);
}

/* ---- stacks counted in the kernel ---- */

static void stacks_to_file(struct session *s, const struct stack_set *set, enum stacks_format fmt,
			   const char *path, struct strbuf *out, struct cmd_result *res)
{
	struct strbuf data = STRBUF_INIT;
	int err = session_stacks_write(s, set, fmt, 0, &data);
	FILE *f = err ? NULL : fopen(path, "w");

	if (!err && (!f || fwrite(data.buf, 1, data.len, f) != data.len))
		err = -errno;
	if (f && fclose(f) && !err)
		err = -errno;
	if (err)
		fail(res, out, err, "cannot write %s: %s", path, wr_strerror(err));
	else
		strbuf_addf(out, "wrote %zu counted stack%s (%llu hits) to %s\n", set->n,
			    set->n == 1 ? "" : "s", (unsigned long long)set->total, path);
	strbuf_release(&data);
}

static void cmd_stacks(struct session *s, const struct words *w, const char *line, const char *file,
		       struct strbuf *out, struct cmd_result *res)
{
	unsigned long top = 10;
	struct stack_set set;
	char *end = "";

	if (w->n == 2 && !strcmp(w->v[1], "clear")) {
		session_stacks_clear(s);
		strbuf_addstr(out, "counted stacks cleared\n");
		return;
	}
	if (w->n == 2 && !strcmp(w->v[1], "live"))
		res->status = CMD_STACKS_LIVE;
	else if (w->n == 2)
		top = strtoul(w->v[1], &end, 10);
	if ((w->n == 3 && strcmp(w->v[1], "folded") && strcmp(w->v[1], "pprof")) || w->n > 3 ||
	    *end || !top) {
		usage(find_command("stacks"), res, out);
		return;
	}
	if (!session_counts_stacks(s)) {
		fail(res, out, -WR_ECOMMAND, "no probe counts stacks; add one with "
		     "`trace TARGET { count bt; }`");
		return;
	}
	if (session_stacks(s, &set)) {
		fail(res, out, -WR_ELOAD, "cannot read the counted stacks from the kernel");
		return;
	}
	if (w->n == 3)
		stacks_to_file(s, &set, !strcmp(w->v[1], "pprof") ? STACKS_PPROF : STACKS_FOLDED,
			       w->v[2], out, res);
	else
		session_stacks_write(s, &set, STACKS_TOP, top, out);
	stack_set_release(&set);
}

/* ---- info, diag ---- */

static void cmd_info(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	char *rest = NULL;
	int err;

	if (w->n < 2) {
		usage(find_command("info"), res, out);
		return;
	}
	if (w->n > 2) /* the rest of the line: a pattern may hold spaces (`f(int, char)`) */
		rest = trimmed(line + (w->v[2] - w->buf));
	err = info_run(s, w->v[1], rest, out);
	free(rest);
	if (err == -WR_EUSAGE)
		usage(find_command("info"), res, out);
	else if (err) {
		res->status = CMD_FAILED;
		res->err = err;
	}
}

static void cmd_diag(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	if (w->n != 1) {
		usage(find_command("diag"), res, out);
		return;
	}
	info_diag(s, out);
	res->status = CMD_DIAG;
}

/* ---- the rest ---- */

static void cmd_wait(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	char *end;

	if (w->n == 3 && strcmp(w->v[1], "events") == 0) {
		struct strbuf why = STRBUF_INIT;

		res->wait_events = strtoull(w->v[2], &end, 10);
		if (!*end && res->wait_events && !session_sends_events(s, &why)) {
			/* the wait would never end */
			fail(res, out, -WR_ECOMMAND, "wait events %s: no probe can send events: %s; "
			     "`wait SECONDS` waits anyway", w->v[2], why.buf);
			strbuf_release(&why);
			return;
		}
		strbuf_release(&why);
		if (!*end && res->wait_events) {
			res->status = CMD_WAIT_EVENTS;
			return;
		}
	} else if (w->n == 2) {
		res->wait_seconds = strtod(w->v[1], &end);
		if (!*end && res->wait_seconds > 0) {
			res->status = CMD_WAIT_TIME;
			return;
		}
	}
	usage(find_command("wait"), res, out);
}

static void cmd_clear(struct session *s, const struct words *w, const char *line, const char *file,
		      struct strbuf *out, struct cmd_result *res)
{
	res->status = CMD_CLEAR;
}

static void cmd_help(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	if (w->n > 1 && !find_command(w->v[1])) {
		fail(res, out, -WR_ECOMMAND, "no command '%s'; `help` lists them", w->v[1]);
		return;
	}
	command_help(w->n > 1 ? w->v[1] : NULL, out);
}

static void cmd_quit(struct session *s, const struct words *w, const char *line, const char *file,
		     struct strbuf *out, struct cmd_result *res)
{
	res->status = CMD_QUIT;
}

static const struct command commands[] = {
	{ "trace", "t", "trace TARGET [{ STATEMENTS }]",
	  "add a probe at a function (or each function a pattern such as do_item_* names), FILE:LINE, 0xADDR or MODULE:0xADDR; without a body, open the "
	  "script editor", cmd_trace },
	{ "info", "i", "info functions [REGEX] | line FILE:LINE | address [MODULE:]0xADDR | "
	  "modules | probes | cfi [MODULE:]0xADDR|FUNCTION | scope TARGET",
	  "what the target has (functions, lines, addresses, modules, unwind rows, the variables a "
	  "probe at TARGET sees) and the probes "
	  "(a topic may be a prefix; gdb's breakpoints and sharedlibrary name probes and modules)",
	  cmd_info },
	{ "enable", "en", "enable ID|all", "attach a disabled probe again", cmd_enable },
	{ "disable", "dis", "disable ID|all", "detach a probe, keeping it for `enable`", cmd_disable },
	{ "delete", "del", "delete ID|all", "remove a probe", cmd_delete },
	{ "set", NULL, "set backtrace-depth N | set pending on|off",
	  "frames per bt (1..1024), or whether probes wait for libraries, for probes added later",
	  cmd_set },
	{ "save", NULL, "save [-f] FILE", "write the probes as a script for --script-file and "
	  "`source`",
	  cmd_save },
	{ "source", NULL, "source FILE", "add the probes of a script file", cmd_source },
	{ "stacks", NULL, "stacks [N] | stacks live | stacks folded FILE | stacks pprof FILE | "
	  "stacks clear",
	  "stacks counted by `count bt`: the N most counted (10), a live view of them in the shell "
	  "(also F4), written as folded stacks or a pprof profile, or cleared", cmd_stacks },
	{ "diag", NULL, "diag", "why backtraces stopped: statuses, error codes, the places and what "
	  "would fix them", cmd_diag },
	{ "wait", NULL, "wait SECONDS | wait events N", "(--batch) let events arrive", cmd_wait },
	{ "clear", NULL, "clear", "clear the output panel", cmd_clear },
	{ "help", "h", "help [COMMAND]", "this list, or one command's usage", cmd_help },
	{ "quit", "q", "quit", "detach everything and exit", cmd_quit },
	{ "exit", NULL, "exit", "the same as quit", cmd_quit },
	{ NULL, NULL, NULL, NULL, NULL },
};

#define HELP_INDENT 12 /* where a command's summary starts */
#define HELP_WIDTH 79  /* the help fits an 80-column screen (F1 cuts longer lines) */

/* @text from column @indent on, broken at spaces to end before @width,
 * continued lines indented as far. */
static void add_wrapped(struct strbuf *out, const char *text, size_t indent, size_t width)
{
	size_t col = indent;

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + word > width) {
			strbuf_addch(out, '\n');
			strbuf_addchars(out, ' ', indent);
			col = indent;
		} else if (col > indent) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, text, word);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
	strbuf_addch(out, '\n');
}

void command_help(const char *name, struct strbuf *out)
{
	const struct command *c = name ? find_command(name) : NULL;

	if (c) {
		strbuf_addf(out, "usage: %s\n  %s\n", c->usage, c->summary);
		if (c->alias)
			strbuf_addf(out, "  short form: %s\n", c->alias);
		return;
	}
	strbuf_addstr(out, "commands:\n");
	for (c = commands; c->name; c++) {
		strbuf_addf(out, "  %-9s ", c->name);
		add_wrapped(out, c->summary, HELP_INDENT, HELP_WIDTH);
	}
	strbuf_addstr(out, "`help COMMAND` shows its usage; a command may be shortened to a "
		       "prefix of\nits name alone, as in gdb (`inf probes`, `i b`).\n");
}

void command_run(struct session *s, const char *line, const char *file, struct strbuf *out,
		 struct cmd_result *res)
{
	const struct command *c;
	bool several = false;
	struct words w;

	memset(res, 0, sizeof(*res));
	split_words(line, &w);
	if (w.n == 0 || w.v[0][0] == '#' || strncmp(w.v[0], "//", 2) == 0) {
		free(w.buf);
		return; /* empty lines and comments */
	}
	c = lookup_command(w.v[0], &several);
	if (several) {
		struct strbuf which = STRBUF_INIT;

		commands_begun(w.v[0], &which);
		fail(res, out, -WR_ECOMMAND, "ambiguous command '%s': %s", w.v[0], which.buf);
		strbuf_release(&which);
	} else if (!c) {
		fail(res, out, -WR_ECOMMAND, "unknown command '%s'; `help` lists the commands", w.v[0]);
	} else {
		c->run(s, &w, line, file, out, res);
	}
	free(w.buf);
}

/* ---- multi-line trace blocks ---- */

bool command_is_incomplete(const char *text)
{
	const char *p = text;
	int depth = 0;
	bool seen_brace = false;

	while (isspace((unsigned char)*p))
		p++;
	if (!(strncmp(p, "trace", 5) == 0 && (isspace((unsigned char)p[5]) || p[5] == '{')) &&
	    !(p[0] == 't' && isspace((unsigned char)p[1])))
		return false;
	for (; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return true;
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
			if (!*p)
				break;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			if (!e)
				return true;
			p = e + 1;
		} else if (*p == '{') {
			depth++;
			seen_brace = true;
		} else if (*p == '}') {
			depth--;
		}
	}
	return seen_brace && depth > 0;
}

/* ---- completion ---- */

struct candidates {
	char **v;
	size_t n, cap;
	const char *prefix;
	size_t prefix_len;
};

static void offer(struct candidates *c, const char *word)
{
	if (strncmp(word, c->prefix, c->prefix_len) != 0)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i], word) == 0)
			return;
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = xstrdup(word);
}

static int offer_function(const char *name, uint64_t vaddr, void *ctx)
{
	(void)vaddr;
	offer(ctx, name);
	return 0;
}

static void offer_topics(struct candidates *c)
{
	static const char *const topics[] = { "functions", "line", "address", "modules", "probes",
					      "cfi", "scope", NULL };

	for (size_t i = 0; topics[i]; i++)
		offer(c, topics[i]);
}

static void offer_probe_ids(struct session *s, struct candidates *c)
{
	struct probe *p;
	char id[16];

	offer(c, "all");
	session_for_each_probe(p, s) {
		snprintf(id, sizeof(id), "%u", probe_id(p));
		offer(c, id);
	}
}

static void offer_word(const char *word, void *ctx)
{
	offer(ctx, word);
}

/* @p in @text starts the word @word followed by a blank. */
static bool starts_probe(const char *text, const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) && (p == text || isspace((unsigned char)p[-1])) &&
	       isspace((unsigned char)p[n]);
}

/* The pattern of the probe whose body @text (up to the cursor) ends
 * inside (the probe begun by `trace` or @keyword, the command as typed),
 * or NULL (owned by the caller).  *in_string: the cursor is in a string
 * literal there. */
static char *open_body_pattern(const char *text, const char *keyword, bool *in_string)
{
	const char *pattern = NULL, *pattern_end = NULL;
	unsigned depth = 0;

	*in_string = false;
	for (const char *p = text; *p; p++) {
		if (*p == '"') {
			while (*++p && *p != '"')
				if (*p == '\\' && p[1])
					p++;
			if (!*p) {
				*in_string = true;
				break;
			}
		} else if (*p == '{') {
			if (!depth++)
				pattern_end = p;
		} else if (*p == '}' && depth) {
			if (!--depth)
				pattern = NULL;
		} else if (!depth && (starts_probe(text, p, "trace") || starts_probe(text, p, keyword))) {
			pattern = p + (starts_probe(text, p, "trace") ? 5 : strlen(keyword));
		}
	}
	if (!depth || !pattern || pattern_end < pattern)
		return NULL;
	return trimmed_n(pattern, (size_t)(pattern_end - pattern));
}

char **command_complete(struct session *s, const char *line, size_t point, size_t *n)
{
	struct candidates c = { 0 };
	struct words w;
	char *head = xstrndup(line, point), *head_all = xstrndup(line, point), *pattern;
	size_t start = point;
	const struct command *cmd;
	bool in_string;

	while (start > 0 && !isspace((unsigned char)head[start - 1]))
		start--;
	c.prefix = line + start;
	c.prefix_len = point - start;
	head[start] = '\0'; /* the words before the one being completed */
	split_words(head, &w);
	cmd = w.n ? find_command(w.v[0]) : NULL;
	if (cmd && cmd->run == cmd_trace && (pattern = open_body_pattern(head_all, w.v[0], &in_string))) {
		char *word = xstrndup(c.prefix, c.prefix_len);

		if (!in_string)
			scope_complete(s, pattern, word, offer_word, &c);
		free(word);
		free(pattern);
	} else if (w.n == 0) {
		for (const struct command *k = commands; k->name; k++)
			offer(&c, k->name);
	} else if (cmd && strcmp(cmd->name, "info") == 0 && w.n == 1) {
		offer_topics(&c);
	} else if (cmd && (cmd->run == cmd_enable || cmd->run == cmd_disable || cmd->run == cmd_delete)) {
		offer_probe_ids(s, &c);
	} else if (cmd && strcmp(cmd->name, "help") == 0) {
		for (const struct command *k = commands; k->name; k++)
			offer(&c, k->name);
	} else if (cmd && (cmd->run == cmd_trace || (w.n == 2 && (strcmp(w.v[1], "functions") == 0 ||
									  strcmp(w.v[1], "cfi") == 0 ||
									  strcmp(w.v[1], "scope") == 0)))) {
		info_foreach_name(s, offer_function, &c);
	}
	free(w.buf);
	free(head);
	free(head_all);
	*n = c.n;
	return c.v;
}
