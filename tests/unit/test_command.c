/* test_command.c - the command interpreter behind the shell, --batch and
 * `source`: parsing, usage errors, help text, `trace` block detection and
 * completion.
 *
 * Every test runs against one session opened in dry-run mode on the
 * chain-O0 fixture ($WRAITH_FIXTURES) as a path target (`-t`): probes are
 * resolved and compiled but never loaded, so no privilege is needed.
 * Expected probe sites come from the DWARF resolver on a separately opened
 * copy of the fixture and from the LINE:leaf-body marker in its source;
 * everything else is golden text compared in full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "tracer/command.h"
#include "tracer/locate.h"
#include "tracer/signature.h"
#include "tracer/session_priv.h" /* next_probe_id: the ids a command will give */
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "chain-O0"

struct fixture {
	char *path;          /* the fixture program */
	struct session *s;
	uint64_t leaf_vaddr; /* leaf's probe site, from the resolver */
	uint64_t leaf_offset;
	uint64_t leaf_entry; /* leaf's symbol, for `info functions` */
	char *leaf_file;     /* as DWARF names it */
	unsigned leaf_line;  /* from the LINE:leaf-body marker */
};

static struct fixture fx;

/* ---- set-up ---- */

static const char *env_dir(const char *name)
{
	const char *dir = getenv(name);

	if (!dir || !*dir)
		fail_msg("%s is not set: run through `make check`, or set it (WRAITH_FIXTURES: "
			 "tests/fixtures/bin of the build tree; WRAITH_SRCDIR: the source tree)", name);
	return dir;
}

static unsigned marker_line(const char *source, const char *marker)
{
	char *path = xasprintf("%s/tests/fixtures/%s", env_dir("WRAITH_SRCDIR"), source);
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned n = 0, found = 0;

	if (!f)
		fail_msg("cannot read %s", path);
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	fclose(f);
	free(path);
	return found;
}

static int remember_entry(const char *name, uint64_t vaddr, void *ctx)
{
	if (strcmp(name, "leaf") == 0)
		*(uint64_t *)ctx = vaddr;
	return 0;
}

static void resolve_leaf(void)
{
	struct dw_module *m = NULL;
	struct dw_sites sites = { 0 };

	assert_int_equal(dw_module_open(fx.path, &m), 0);
	assert_int_equal(dw_resolve_function(m, "leaf", &sites), 0);
	assert_int_equal(sites.n, 1);
	fx.leaf_vaddr = sites.v[0].vaddr;
	assert_int_equal(dw_module_vaddr_to_offset(m, fx.leaf_vaddr, &fx.leaf_offset), 0);
	assert_non_null(sites.v[0].file);
	fx.leaf_file = xstrdup(sites.v[0].file);
	dw_module_foreach_function(m, remember_entry, &fx.leaf_entry);
	assert_int_not_equal(fx.leaf_entry, 0);
	dw_sites_release(&sites);
	dw_module_free(m);
}

static int setup(void **state)
{
	struct session_options so = { .format = RENDER_PRETTY, .dry_run = true };

	fx.path = xasprintf("%s/%s", env_dir("WRAITH_FIXTURES"), FIXTURE);
	if (access(fx.path, R_OK) != 0)
		fail_msg("fixture %s is missing (build it with `make tests/fixtures/bin/.stamp`)", fx.path);
	fx.leaf_line = marker_line("chain.c", "LINE:leaf-body");
	assert_int_not_equal(fx.leaf_line, 0);
	resolve_leaf();
	so.path = fx.path;
	assert_int_equal(session_new(&so, &fx.s), 0);
	return 0;
}

static int teardown(void **state)
{
	session_free(fx.s);
	free(fx.path);
	free(fx.leaf_file);
	memset(&fx, 0, sizeof(fx));
	return 0;
}

/* Each test starts without probes. */
static int no_probes(void **state)
{
	while (session_probe_count(fx.s))
		session_delete(fx.s, session_next_probe(fx.s, NULL));
	session_set_bt_depth(fx.s, 128);
	return 0;
}

/* ---- helpers ---- */

struct run {
	enum cmd_status status;
	int err;
	char *out;    /* owned */
	char *target; /* owned: edit_target */
	double seconds;
	uint64_t events;
};

static struct run run(const char *line)
{
	struct strbuf out = STRBUF_INIT;
	struct cmd_result res;
	struct run r;

	command_run(fx.s, line, NULL, &out, &res);
	r = (struct run){ res.status, res.err, strbuf_detach(&out),
			  res.edit_target ? xstrdup(res.edit_target) : NULL, res.wait_seconds,
			  res.wait_events };
	cmd_result_release(&res);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->target);
}

/* Run @line and expect @status with exactly @out. */
static void expect(const char *line, enum cmd_status status, const char *out)
{
	struct run r = run(line);

	if (strcmp(r.out, out) != 0 || r.status != status)
		print_error("command: %s\n", line);
	assert_string_equal(r.out, out);
	assert_int_equal(r.status, status);
	run_free(&r);
}

static void expect_failure(const char *line, int err, const char *out)
{
	struct run r = run(line);

	if (strcmp(r.out, out) != 0 || r.err != err)
		print_error("command: %s\n", line);
	assert_string_equal(r.out, out);
	assert_int_equal(r.status, CMD_FAILED);
	assert_int_equal(r.err, err);
	run_free(&r);
}

/* What `trace leaf { ... }` reports for probe @id. */
static char *leaf_report(unsigned id, bool enabled)
{
	return xasprintf("probe %u: leaf (1 site)%s\n  #1 %s+0x%llx (file offset 0x%llx) leaf at %s:%u\n",
			 id, enabled ? "" : " [disabled]", FIXTURE, (unsigned long long)fx.leaf_vaddr,
			 (unsigned long long)fx.leaf_offset, fx.leaf_file, fx.leaf_line);
}

static char *probes_line(unsigned id, const char *state)
{
	return xasprintf("#%u leaf  %s  sites 1  hits 0  events 0  filtered 0  lost 0\n", id, state);
}

/* ---- parsing and usage ---- */

static void test_empty_and_comments(void **state)
{
	expect("", CMD_OK, "");
	expect("   \t ", CMD_OK, "");
	expect("# a comment", CMD_OK, "");
	expect("// another", CMD_OK, "");
}

static void test_unknown_command(void **state)
{
	expect_failure("frobnicate", -WR_ECOMMAND,
		       "unknown command 'frobnicate'; `help` lists the commands\n");
	expect_failure("  traces leaf", -WR_ECOMMAND,
		       "unknown command 'traces'; `help` lists the commands\n");
}

static void test_usage_lines(void **state)
{
	static const struct { const char *line, *usage; } cases[] = {
		{ "trace", "trace TARGET [{ STATEMENTS }]" },
		{ "info", "info functions [REGEX] | line FILE:LINE | address [MODULE:]0xADDR | modules | "
			  "probes | cfi [MODULE:]0xADDR|FUNCTION | scope TARGET" },
		{ "info bogus", "info functions [REGEX] | line FILE:LINE | address [MODULE:]0xADDR | "
				"modules | probes | cfi [MODULE:]0xADDR|FUNCTION | scope TARGET" },
		{ "enable", "enable ID|all" },
		{ "en x", "enable ID|all" },
		{ "enable 0", "enable ID|all" },
		{ "disable 1 2", "disable ID|all" },
		{ "delete", "delete ID|all" },
		{ "set", "set backtrace-depth N | set pending on|off" },
		{ "set depth 3", "set backtrace-depth N | set pending on|off" },
		{ "save", "save [-f] FILE" },
		{ "save -x f", "save [-f] FILE" },
		{ "source", "source FILE" },
		{ "diag now", "diag" },
		{ "wait", "wait SECONDS | wait events N" },
		{ "wait 0", "wait SECONDS | wait events N" },
		{ "wait events 0", "wait SECONDS | wait events N" },
		{ "wait soon", "wait SECONDS | wait events N" },
		{ "stacks 0", "stacks [N] | stacks live | stacks folded FILE | stacks pprof FILE | stacks clear" },
		{ "stacks svg f", "stacks [N] | stacks live | stacks folded FILE | stacks pprof FILE | stacks clear" },
		{ "stacks folded", "stacks [N] | stacks live | stacks folded FILE | stacks pprof FILE | stacks clear" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *want = xasprintf("usage: %s\n", cases[i].usage);

		expect_failure(cases[i].line, -WR_EUSAGE, want);
		free(want);
	}
}

static void test_bad_values(void **state)
{
	expect("set pending on", CMD_OK,
	       "pending is on: a probe on a function no library defines yet waits for one\n");
	expect("set pending off", CMD_OK,
	       "pending is off: a probe on a function no library defines yet is an error\n");
	expect_failure("set pending maybe", -WR_EUSAGE, "usage: set backtrace-depth N | set pending on|off\n");
	expect_failure("set backtrace-depth 0", -WR_EUSAGE, "backtrace-depth must be 1..1024 (got '0')\n");
	expect_failure("set backtrace-depth 1025", -WR_EUSAGE,
		       "backtrace-depth must be 1..1024 (got '1025')\n");
	expect_failure("enable 7", -WR_ECOMMAND, "no probe 7; `info probes` lists them\n");
	expect_failure("source /nonexistent/wraith.ws", -ENOENT,
		       "cannot read /nonexistent/wraith.ws: No such file or directory\n");
	expect_failure("help nope", -WR_ECOMMAND, "no command 'nope'; `help` lists them\n");
	expect_failure("stacks", -WR_ECOMMAND,
		       "no probe counts stacks; add one with `trace TARGET { count bt; }`\n");
	expect_failure("stacks live", -WR_ECOMMAND,
		       "no probe counts stacks; add one with `trace TARGET { count bt; }`\n");
}

/* ---- help ---- */

static void test_help_all(void **state)
{
	static const char want[] =
		"commands:\n"
		"  trace     add a probe at a function (or each function a pattern such as\n"
		"            do_item_* names), FILE:LINE, 0xADDR or MODULE:0xADDR; without a\n"
		"            body, open the script editor\n"
		"  info      what the target has (functions, lines, addresses, modules, unwind\n"
		"            rows, the variables a probe at TARGET sees) and the probes (a topic\n"
		"            may be a prefix; gdb's breakpoints and sharedlibrary name probes\n"
		"            and modules)\n"
		"  enable    attach a disabled probe again\n"
		"  disable   detach a probe, keeping it for `enable`\n"
		"  delete    remove a probe\n"
		"  set       frames per bt (1..1024), or whether probes wait for libraries, for\n"
		"            probes added later\n"
		"  save      write the probes as a script for --script-file and `source`\n"
		"  source    add the probes of a script file\n"
		"  stacks    stacks counted by `count bt`: the N most counted (10), a live view\n"
		"            of them in the shell (also F4), written as folded stacks or a pprof\n"
		"            profile, or cleared\n"
		"  diag      why backtraces stopped: statuses, error codes, the places and what\n"
		"            would fix them\n"
		"  wait      (--batch) let events arrive\n"
		"  clear     clear the output panel\n"
		"  help      this list, or one command's usage\n"
		"  quit      detach everything and exit\n"
		"  exit      the same as quit\n"
		"`help COMMAND` shows its usage; a command may be shortened to a prefix of\n"
		"its name alone, as in gdb (`inf probes`, `i b`).\n";
	struct strbuf sb = STRBUF_INIT;

	expect("help", CMD_OK, want);
	expect("h", CMD_OK, want);
	command_help(NULL, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_help_one(void **state)
{
	expect("help trace", CMD_OK,
	       "usage: trace TARGET [{ STATEMENTS }]\n"
	       "  add a probe at a function (or each function a pattern such as do_item_* names), "
	       "FILE:LINE, 0xADDR or MODULE:0xADDR; without a body, open "
	       "the script editor\n"
	       "  short form: t\n");
	expect("help en", CMD_OK, "usage: enable ID|all\n  attach a disabled probe again\n  short form: en\n");
	expect("help save", CMD_OK,
	       "usage: save [-f] FILE\n  write the probes as a script for --script-file and `source`\n");
}

/* ---- probes ---- */

static void test_probe_lifecycle(void **state)
{
	char *added = leaf_report(1, true), *on = probes_line(1, "enabled");
	char *off = probes_line(1, "disabled");

	expect("trace leaf { print \"x\"; }", CMD_OK, added);
	expect("info probes", CMD_OK, on);
	expect("disable 1", CMD_OK, "probe 1 disabled\n");
	expect("info probes", CMD_OK, off);
	expect("dis all", CMD_OK, "probe 1 disabled\n");
	expect("enable all", CMD_OK, "probe 1 enabled\n");
	expect("info p", CMD_OK, on);
	expect("delete 1", CMD_OK, "probe 1 deleted\n");
	expect("info probes", CMD_OK, "no probes; add one with `trace TARGET { ... }`\n");
	expect_failure("delete 1", -WR_ECOMMAND, "no probe 1; `info probes` lists them\n");
	free(added);
	free(on);
	free(off);
}

static void test_trace_block_on_lines(void **state)
{
	unsigned id = fx.s->next_probe_id;
	char *want = leaf_report(id, true);

	expect("t leaf {\n  print \"a\";\n  // a comment }\n}\n", CMD_OK, want);
	assert_non_null(session_probe(fx.s, id));
	assert_string_equal(probe_source(session_probe(fx.s, id)),
			    "trace leaf {\n  print \"a\";\n  // a comment }\n}");
	free(want);
}

static void test_trace_opens_editor(void **state)
{
	struct run r = run("trace leaf");

	assert_int_equal(r.status, CMD_EDIT);
	assert_string_equal(r.target, "leaf");
	assert_string_equal(r.out, "");
	run_free(&r);
	r = run("t chain.c:12");
	assert_int_equal(r.status, CMD_EDIT);
	assert_string_equal(r.target, "chain.c:12");
	run_free(&r);
	assert_int_equal(session_probe_count(fx.s), 0);
}

static void test_trace_errors(void **state)
{
	char *missing = xasprintf("<command>:1:7: error: no function 'nosuchfn' in %s or its "
				  "libraries\n"
				  "    trace nosuchfn { print \"x\"; }\n"
				  "          ^~~~~~~~\n"
				  "hint: `info functions REGEX` lists the functions\n", fx.path);

	expect_failure("trace leaf { print \"x\" }", -WR_ESYNTAX,
		       "<command>:1:24: error: expected ';' after print statement, found '}'\n"
		       "    trace leaf { print \"x\" }\n"
		       "                           ^\n"
		       "hint: statements end with ';'\n");
	expect_failure("trace nosuchfn { print \"x\"; }", -WR_ENOTARGET, missing);
	assert_int_equal(session_probe_count(fx.s), 0); /* nothing half-added */
	free(missing);
}

static void test_set_depth(void **state)
{
	expect("set backtrace-depth 16", CMD_OK, "backtrace-depth is 16 for probes added from now on\n");
	assert_int_equal(session_bt_depth(fx.s), 16);
}

static void test_save_and_source(void **state)
{
	char path[] = "/tmp/wraith-test-command-XXXXXX";
	int fd = mkstemp(path);
	char *cmd, *text = NULL, *report;
	struct run r;
	unsigned id;
	FILE *f;
	long len;

	assert_true(fd >= 0);
	close(fd);
	id = fx.s->next_probe_id;
	report = leaf_report(id, true);
	expect("trace leaf { print \"s\"; }", CMD_OK, report);
	free(report);
	report = xasprintf("probe %u disabled\n", id);
	expect("disable all", CMD_OK, report);
	free(report);
	cmd = xasprintf("save %s", path);
	report = xasprintf("saved 1 probe to %s\n", path);
	expect(cmd, CMD_OK, report);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = xcalloc((size_t)len + 1, 1);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_string_equal(text, "// wraith probes\n// disabled:\ntrace leaf { print \"s\"; }\n");
	free(text);
	free(cmd);
	free(report);
	report = xasprintf("probe %u deleted\n", id);
	expect("delete all", CMD_OK, report);
	free(report);
	id = fx.s->next_probe_id;
	cmd = xasprintf("source %s", path);
	report = leaf_report(id, false);
	expect(cmd, CMD_OK, report);
	assert_int_equal(session_probe_count(fx.s), 1);
	/* Saved disabled, sourced disabled. */
	assert_false(probe_enabled(session_probe(fx.s, id)));
	free(report);
	report = xasprintf("probe %u deleted\n", id);
	expect("delete all", CMD_OK, report);
	/* Only the probe right after the mark is disabled. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("trace leaf { print \"a\"; }\n// disabled:\ntrace leaf { print \"b\"; }\n"
	      "trace leaf { print \"c\"; }\n", f);
	fclose(f);
	id = fx.s->next_probe_id;
	r = run(cmd);
	assert_int_equal(r.status, CMD_OK);
	run_free(&r);
	assert_true(probe_enabled(session_probe(fx.s, id)));
	assert_false(probe_enabled(session_probe(fx.s, id + 1)));
	assert_true(probe_enabled(session_probe(fx.s, id + 2)));
	free(cmd);
	free(report);
	unlink(path);
}

/* ---- info, diag and the statuses a front end acts on ---- */

static void test_info(void **state)
{
	struct run r;
	char *fns = xasprintf("%s: 1 function\n  0x%-10llx leaf\n", fx.path,
			      (unsigned long long)fx.leaf_entry);
	char *line = xasprintf("info line chain.c:%u", fx.leaf_line);
	char *site = xasprintf("  %s+0x%llx leaf at %s:%u\n", FIXTURE, (unsigned long long)fx.leaf_vaddr,
			       fx.leaf_file, fx.leaf_line);

	expect("info functions ^leaf$", CMD_OK, fns);
	expect(line, CMD_OK, site);
	/* A query that finds nothing is a failed command: --batch stops there. */
	expect("info functions ^nothing_like_this$", CMD_FAILED,
	       "no function matches '^nothing_like_this$'\n");
	expect("info line chain.c:99999", CMD_FAILED,
	       "no code at chain.c:99999 (no line table of the target has it)\n");
	expect("info cfi nothing_like_this", CMD_FAILED, "no function 'nothing_like_this'\n");
	r = run("info scope leaf");
	if (!strstr(r.out, "\n    x: int, parameter, in the frame at CFA-"))
		print_error("info scope leaf: %s\n", r.out);
	assert_non_null(strstr(r.out, " leaf at "));
	assert_non_null(strstr(r.out, "\n    x: int, parameter, in the frame at CFA-"));
	run_free(&r);
	r = run("info scope nothing_like_this");
	assert_int_equal(r.status, CMD_FAILED);
	assert_non_null(strstr(r.out, "'nothing_like_this': no function 'nothing_like_this'"));
	run_free(&r);
	free(fns);
	free(line);
	free(site);
}

static void test_front_end_statuses(void **state)
{
	struct run r;

	expect("clear", CMD_CLEAR, "");
	expect("quit", CMD_QUIT, "");
	expect("q", CMD_QUIT, "");
	expect("exit", CMD_QUIT, "");
	expect("diag", CMD_DIAG, "no backtraces yet: add `bt;` or `count bt;` to a probe and let it fire\n");
	r = run("wait 1.5");
	assert_int_equal(r.status, CMD_WAIT_TIME);
	assert_true(r.seconds == 1.5);
	run_free(&r);
	/* no probe: nothing could end the wait */
	expect_failure("wait events 3", -WR_ECOMMAND,
		       "wait events 3: no probe can send events: there is no probe; "
		       "`wait SECONDS` waits anyway\n");
	r = run("trace leaf { count bt; }");
	run_free(&r);
	r = run("wait events 3");
	assert_int_equal(r.status, CMD_FAILED);
	assert_non_null(strstr(r.out, "(leaf) only counts stacks (count bt sends no event); "
				      "`wait SECONDS` waits anyway\n"));
	run_free(&r);
	r = run("trace leaf { print \"x\"; }");
	run_free(&r);
	r = run("wait events 3");
	assert_int_equal(r.status, CMD_WAIT_EVENTS);
	assert_int_equal(r.events, 3);
	run_free(&r);
	r = run("delete all");
	run_free(&r);
}

/* gdb's way of shortening: a prefix of one command name, an info topic's
 * prefix, info breakpoints for info probes; an ambiguous prefix names the
 * commands it begins. */
static void test_abbreviations(void **state)
{
	struct run r = run("trace leaf { print \"x\"; }");
	unsigned id = 0;
	char *on, *del;

	assert_int_equal(sscanf(r.out, "probe %u:", &id), 1);
	run_free(&r);
	on = probes_line(id, "enabled");
	del = xasprintf("probe %u deleted\n", id);
	expect("inf probes", CMD_OK, on);
	expect("i b", CMD_OK, on);
	expect("info breakpoints", CMD_OK, on);
	expect("info pro", CMD_OK, on);
	expect("sta clear", CMD_OK, "counted stacks cleared\n");
	expect_failure("d all", -WR_ECOMMAND, "ambiguous command 'd': disable, delete, diag\n");
	expect_failure("s", -WR_ECOMMAND, "ambiguous command 's': set, save, source, stacks\n");
	expect_failure("info xyz", -WR_EUSAGE, "usage: info functions [REGEX] | line FILE:LINE | "
		       "address [MODULE:]0xADDR | modules | probes | cfi [MODULE:]0xADDR|FUNCTION | "
		       "scope TARGET\n");
	r = run("del all");
	assert_string_equal(r.out, del);
	run_free(&r);
	free(del);
	free(on);
}

/* ---- trace blocks over several lines ---- */

static void test_incomplete(void **state)
{
	static const struct { const char *text; bool open; } cases[] = {
		{ "trace leaf {", true },
		{ "trace leaf {\n  print \"x\";\n", true },
		{ "t leaf {", true },
		{ "  trace leaf { if (1) { print \"x\"; }", true },
		{ "trace leaf { print \"}\";", true },          /* a brace in a string */
		{ "trace leaf { print \"a\\\"}\";", true },     /* an escaped quote */
		{ "trace leaf { print \"unterminated", true },
		{ "trace leaf { // }\n", true },                /* a brace in a comment */
		{ "trace leaf { /* } */", true },
		{ "trace leaf { /* unterminated", true },
		{ "trace leaf { print \"x\"; }", false },
		{ "trace leaf { print \"x\"; } // {", false },
		{ "trace leaf {\n}\n", false },
		{ "trace leaf", false },                        /* opens the editor instead */
		{ "info probes", false },
		{ "", false },
		{ "tracer {", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (command_is_incomplete(cases[i].text) != cases[i].open)
			print_error("text: %s\n", cases[i].text);
		assert_int_equal(command_is_incomplete(cases[i].text), cases[i].open);
	}
}

/* ---- completion ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The candidates for @line (point at its end), sorted, joined by spaces. */
static char *completions(const char *line)
{
	size_t n = 0;
	char **v = command_complete(fx.s, line, strlen(line), &n);
	struct strbuf sb = STRBUF_INIT;

	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
	free(v);
	return strbuf_detach(&sb);
}

static void expect_completions(const char *line, const char *want)
{
	char *got = completions(line);

	if (strcmp(got, want) != 0)
		print_error("completing: '%s'\n", line);
	assert_string_equal(got, want);
	free(got);
}

/* @word is among the candidates for @line. */
static void expect_candidate(const char *line, const char *word)
{
	char *got = completions(line), *padded = xasprintf(" %s ", got);
	char *needle = xasprintf(" %s ", word);

	if (!strstr(padded, needle))
		print_error("completing '%s': no '%s' in '%s'\n", line, word, got);
	assert_non_null(strstr(padded, needle));
	free(got);
	free(padded);
	free(needle);
}

static void test_complete_commands(void **state)
{
	expect_completions("", "clear delete diag disable enable exit help info quit save set source "
			       "stacks trace wait");
	expect_completions("in", "info");
	expect_completions("d", "delete diag disable");
	expect_completions("s", "save set source stacks");
	expect_completions("help di", "diag disable");
	expect_completions("zzz", "");
	expect_completions("frobnicate x", "");
}

static void test_complete_arguments(void **state)
{
	char *added = leaf_report(fx.s->next_probe_id, true);
	char *ids;

	expect_completions("info ", "address cfi functions line modules probes scope");
	expect_completions("info p", "probes");
	expect_completions("  info  c", "cfi");
	expect("trace leaf { print \"c\"; }", CMD_OK, added);
	ids = xasprintf("%u all", probe_id(session_next_probe(fx.s, NULL)));
	expect_completions("disable ", ids);
	expect_completions("delete a", "all");
	expect_candidate("trace le", "leaf");
	expect_candidate("trace ", "main");
	expect_candidate("trace cha", "chain.c:");
	expect_candidate("info functions ma", "main");
	expect_candidate("info cfi lea", "leaf");
	expect_candidate("info scope mi", "middle");
	expect_completions("quit ", "");
	free(ids);
	free(added);
}

/* Inside a probe's body: the names its site sees, not functions. */
static void test_complete_in_body(void **state)
{
	expect_completions("trace middle { print \"{}\", r", "r");
	expect_candidate("trace middle { print \"{}\", ", "x");
	expect_candidate("trace middle { print \"{}\", ", "strncmp");
	expect_completions("trace leaf { if $p", "$pc $pid");
	expect_completions("t leaf {print x", "x");
	expect_completions("trace leaf { print x; } trace middle { print \"{}\", r", "r");
	expect_completions("trace leaf { print \"x", "");
	expect_completions("trace leaf { print x.", ""); /* an int has no members */
	expect_candidate("trace leaf { } trace mi", "middle"); /* libc's too, once read */
}

/* Completion looks only at the word before the point. */
static void test_complete_mid_line(void **state)
{
	size_t n = 0;
	char **v = command_complete(fx.s, "info pro and more", 8, &n);

	assert_int_equal(n, 1);
	assert_string_equal(v[0], "probes");
	free(v[0]);
	free(v);
}

/* Overload signatures in trace patterns (tracer/signature.c). */
static void test_signatures(void **state)
{
	static const char *const gxx =
		"Store::lookup(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)+8";
	static const char *const lcxx =
		"Store::lookup(std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> > const&)";

	(void)state;
	assert_int_equal(signature_params_at("f(int)"), 1);
	assert_int_equal(signature_params_at("f"), -1);
	assert_int_equal(signature_params_at("S::operator()"), -1);
	assert_int_equal(signature_params_at("S::operator()(int)"), 13);
	assert_int_equal(signature_params_at("f(g(int))"), 1);
	assert_true(signature_matches(gxx, "Store::lookup", "(std::string const&)"));
	assert_true(signature_matches(gxx, "Store::lookup", "(const std::string &)"));
	assert_true(signature_matches(lcxx, "Store::lookup", "(const std::string&)"));
	assert_false(signature_matches(gxx, "Store::lookup", "(std::string&)"));
	assert_false(signature_matches(gxx, "Store::lookup", "(std::string_view const&)"));
	assert_false(signature_matches(gxx, "Store::look", "(std::string const&)"));
	assert_true(signature_matches("inspect(Cfg const&, All&)", "inspect", "(const Cfg&, All &)"));
	assert_true(signature_matches("f(char const*, int)", "f", "(const char *, int)"));
	assert_false(signature_matches("f(char const*, int)", "f", "(const char *)"));
	assert_true(signature_matches("f()", "f", "( )"));
	assert_false(signature_matches("f", "f", "()"));
}

/* Wildcards in function patterns (tracer/locate_glob.c). */
static void test_globs(void **state)
{
	static const struct { const char *pattern; bool glob; } globs[] = {
		{ "do_item_*", true }, { "*_filter", true }, { "store_p?t", true }, { "Store::*", true },
		{ "do_item_get", false }, { "Foo::operator*", false }, { "Foo::operator*=", false },
		{ "Foo::operator->*", false }, { "f(char *)", false }, { "std::vector<int*>::push_back", false },
	};
	static const struct { const char *pattern, *name; bool match; } matches[] = {
		{ "do_item_*", "do_item_get", true }, { "do_item_*", "do_item_", true },
		{ "do_item_*", "do_ite", false }, { "store_*", "restore_x", false },
		{ "*store*", "restore", true }, { "store_p?t", "store_put", true },
		{ "store_p?t", "store_pt", false }, { "*_*_filter", "ngx_http_write_filter", true },
		{ "*_filter", "ngx_http_write_filters", false }, { "Store::*", "Store::lookup", true },
		{ "a*b*c", "aXbYbZc", true }, { "a*b*c", "aXbYbZ", false }, { "*", "", true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		assert_int_equal(locate_is_glob(globs[i].pattern), globs[i].glob);
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++)
		assert_int_equal(locate_glob_match(matches[i].pattern, matches[i].name), matches[i].match);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_globs),
		cmocka_unit_test_setup(test_empty_and_comments, no_probes),
		cmocka_unit_test_setup(test_unknown_command, no_probes),
		cmocka_unit_test_setup(test_usage_lines, no_probes),
		cmocka_unit_test_setup(test_bad_values, no_probes),
		cmocka_unit_test_setup(test_help_all, no_probes),
		cmocka_unit_test_setup(test_help_one, no_probes),
		cmocka_unit_test_setup(test_probe_lifecycle, no_probes),
		cmocka_unit_test_setup(test_abbreviations, no_probes),
		cmocka_unit_test_setup(test_trace_block_on_lines, no_probes),
		cmocka_unit_test_setup(test_trace_opens_editor, no_probes),
		cmocka_unit_test_setup(test_trace_errors, no_probes),
		cmocka_unit_test_setup(test_set_depth, no_probes),
		cmocka_unit_test_setup(test_save_and_source, no_probes),
		cmocka_unit_test_setup(test_info, no_probes),
		cmocka_unit_test_setup(test_front_end_statuses, no_probes),
		cmocka_unit_test_setup(test_incomplete, no_probes),
		cmocka_unit_test_setup(test_complete_commands, no_probes),
		cmocka_unit_test_setup(test_complete_in_body, no_probes),
		cmocka_unit_test_setup(test_complete_arguments, no_probes),
		cmocka_unit_test_setup(test_complete_mid_line, no_probes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
