/* main.c - wraith's command line: parse options, pick a mode (interactive
 * shell, script mode, --batch, --dry-run), and run it.
 *
 * Exit status: 0 ok, 1 runtime failure, 2 usage or script error.  Every
 * mode ends through the same path that frees the session, which detaches
 * every uprobe and closes every BPF program and map.
 */
#include "config.h"

#include "codegen/codegen.h"
#include "frontend/batch.h"
#include "frontend/cli.h"
#include "frontend/script.h"
#include "render/render.h"
#include "tracer/session.h"
#include "ui/shell.h"
#include "util/log.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
"Usage: wraith -p PID [OPTIONS]                 interactive shell on a running process\n"
"       wraith -t PATH [OPTIONS]                every process running PATH (program or library)\n"
"       wraith -p PID -s 'SCRIPT' [OPTIONS]     script mode: events on stdout until stopped\n"
"       wraith -p PID --script-file FILE [OPTIONS]\n"
"       wraith -p PID --batch FILE [OPTIONS]    run shell commands from FILE, no TUI\n"
"\n"
"Target:\n"
"  -p, --pid PID             trace the process PID\n"
"  -t, --target PATH         trace every process that maps PATH (executable or .so)\n"
"\n"
"Mode:\n"
"  -s, --script SCRIPT       run SCRIPT (trace blocks) and print events\n"
"      --script-file FILE    run the script in FILE\n"
"      --batch FILE          run shell commands from FILE without the TUI\n"
"      --keep-going          in --batch, report a failing command and go on\n"
"      --dry-run             resolve and compile every probe, show the plan, attach nothing\n"
"\n"
"Output:\n"
"      --script-output FMT   pretty (default), plain (payload only) or json (NDJSON,\n"
"                            one event per line)\n"
"      --color WHEN          auto (default), always or never; NO_COLOR is honoured\n"
"      --relative-time       pretty headers show seconds since start, not wall time\n"
"\n"
"Limits:\n"
"      --max-events N        stop after N events\n"
"      --timeout SECONDS     stop after SECONDS (fractions allowed)\n"
"      --backtrace-depth N   frames per bt, 1..1024 (default 128)\n"
"\n"
"Kernel:\n"
"      --transport KIND      ringbuf (default) or perf (perf event array)\n"
"\n"
"Diagnostics:\n"
"  -v, --verbose             show debug messages (libbpf, verifier logs) on stderr\n"
"      --log-file FILE       append every message, debug included, to FILE\n"
"  -q, --quiet               no status lines on stderr, only errors\n"
"  -h, --help                show this help\n"
"  -V, --version             show the version\n"
"\n"
"Script language: trace <function | file:line | 0xADDR | module:0xADDR> { ... } with\n"
"print \"fmt {}\", expr...;  bt; / backtrace; [raw|full|inline|noinline]  if/else  let;\n"
"expressions read the program's variables (req.name, p[i], *ptr, cast(x, \"T *\")).\n"
"See wraith(1) and doc/script-reference.md.  Exit status: 0 ok, 1 runtime failure,\n"
"2 usage or script error.\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must wake the event poll. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("wraith: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'wraith --help' for more information.\n", stderr);
	return 2;
}

static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && *out <= max;
}

enum long_only {
	OPT_SCRIPT_FILE = 256, OPT_BATCH, OPT_KEEP_GOING, OPT_DRY_RUN, OPT_OUTPUT, OPT_COLOR,
	OPT_MAX_EVENTS, OPT_TIMEOUT, OPT_DEPTH, OPT_TRANSPORT, OPT_LOG_FILE, OPT_RELATIVE,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "target", required_argument, NULL, 't' },
	{ "script", required_argument, NULL, 's' },
	{ "script-file", required_argument, NULL, OPT_SCRIPT_FILE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "script-output", required_argument, NULL, OPT_OUTPUT },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "relative-time", no_argument, NULL, OPT_RELATIVE },
	{ "max-events", required_argument, NULL, OPT_MAX_EVENTS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "backtrace-depth", required_argument, NULL, OPT_DEPTH },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_value_option(int c, const char *arg, struct cli_options *o)
{
	unsigned long long v;
	char *end;

	switch (c) {
	case 'p':
		if (!parse_uint(arg, INT_MAX, &v) || v == 0)
			return usage_error("invalid PID '%s': expected a positive number", arg);
		o->pid = (pid_t)v;
		return 0;
	case OPT_OUTPUT:
		o->format = render_format_parse(arg);
		if ((int)o->format < 0)
			return usage_error("invalid --script-output '%s': expected pretty, plain or json", arg);
		return 0;
	case OPT_COLOR:
		if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
			return usage_error("invalid --color '%s': expected auto, always or never", arg);
		o->color_mode = arg;
		return 0;
	case OPT_MAX_EVENTS:
		if (!parse_uint(arg, ULLONG_MAX, &v) || v == 0)
			return usage_error("invalid --max-events '%s': expected a number >= 1", arg);
		o->max_events = v;
		return 0;
	case OPT_TIMEOUT:
		errno = 0;
		o->timeout = strtod(arg, &end);
		if (errno || *end || !(o->timeout > 0))
			return usage_error("invalid --timeout '%s': expected seconds > 0", arg);
		return 0;
	case OPT_DEPTH:
		if (!parse_uint(arg, WR_BT_MAX_DEPTH, &v) || v < 1)
			return usage_error("invalid --backtrace-depth '%s': expected 1..%u", arg,
					   WR_BT_MAX_DEPTH);
		o->bt_depth = (unsigned)v;
		return 0;
	case OPT_TRANSPORT:
		if (strcmp(arg, "ringbuf") == 0)
			o->transport = WR_TRANSPORT_RINGBUF;
		else if (strcmp(arg, "perf") == 0)
			o->transport = WR_TRANSPORT_PERF;
		else
			return usage_error("invalid --transport '%s': expected ringbuf or perf", arg);
		return 0;
	}
	return usage_error("internal error: option %d", c);
}

static int parse_options(int argc, char **argv, struct cli_options *o)
{
	int c, err;

	while ((c = getopt_long(argc, argv, "p:t:s:vqhV", long_options, NULL)) != -1) {
		switch (c) {
		case 't': o->path = optarg; break;
		case 's': o->script = optarg; break;
		case OPT_SCRIPT_FILE: o->script_file = optarg; break;
		case OPT_BATCH: o->batch_file = optarg; break;
		case OPT_KEEP_GOING: o->keep_going = true; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_RELATIVE: o->relative_time = true; break;
		case OPT_LOG_FILE: o->log_file = optarg; break;
		case 'v': o->verbose = true; break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		case 'V': o->version = true; break;
		case '?': return 2; /* getopt printed why */
		default:
			err = parse_value_option(c, optarg, o);
			if (err)
				return err;
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int check_options(const struct cli_options *o)
{
	int modes = !!o->script + !!o->script_file + !!o->batch_file;

	if (!o->pid && !o->path)
		return usage_error("nothing to trace: give -p PID or -t PATH");
	if (o->pid && o->path)
		return usage_error("-p and -t cannot be combined");
	if (modes > 1)
		return usage_error("-s, --script-file and --batch are alternatives: give one");
	if (o->keep_going && !o->batch_file)
		return usage_error("--keep-going only applies to --batch");
	if (o->dry_run && !modes)
		return usage_error("--dry-run needs a script (-s, --script-file or --batch)");
	return 0;
}

static enum render_color pick_color(const struct cli_options *o)
{
	if (o->color_mode && strcmp(o->color_mode, "always") == 0)
		return RENDER_COLOR_ANSI;
	if (o->color_mode && strcmp(o->color_mode, "never") == 0)
		return RENDER_COLOR_NONE;
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		return RENDER_COLOR_NONE;
	return isatty(STDOUT_FILENO) ? RENDER_COLOR_ANSI : RENDER_COLOR_NONE;
}

/* Capabilities wraith needs to load BPF and attach uprobes. */
static bool privileged(void)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long long eff = 0;
	FILE *f;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "r");
	while (f && getline(&line, &cap, f) > 0)
		if (strncmp(line, "CapEff:", 7) == 0)
			eff = strtoull(line + 7, NULL, 16);
	if (f)
		fclose(f);
	free(line);
	return (eff >> 21 & 1) && (eff >> 38 & 1) && (eff >> 39 & 1); /* SYS_ADMIN, PERFMON, BPF */
}

/* Open the session and run the mode @o asks for.  Returns the exit status. */
static int run(const struct cli_options *o)
{
	struct session *s = NULL;
	int err = cli_open_session(o, &s), rc;

	if (err)
		return cli_exit_status(err);
	if (o->batch_file)
		rc = batch_run(o, s);
	else if (o->script || o->script_file)
		rc = script_mode_run(o, s);
	else
		rc = ui_run(s, o);
	session_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli_options o = { .format = RENDER_PRETTY, .transport = WR_TRANSPORT_RINGBUF };
	int rc = parse_options(argc, argv, &o);

	if (rc)
		return rc;
	if (o.help) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (o.version) {
		printf("wraith %s\n", PACKAGE_VERSION);
		return 0;
	}
	rc = check_options(&o);
	if (rc)
		return rc;
	if (o.verbose)
		wr_log_set_level(WR_LOG_DEBUG);
	if (o.log_file && wr_log_open_file(o.log_file)) {
		fprintf(stderr, "wraith: cannot open log file %s: %s\n", o.log_file, strerror(errno));
		return 2;
	}
	if (!o.dry_run && !privileged()) {
		fprintf(stderr, "wraith: not enough privilege: loading BPF programs and attaching uprobes "
			"needs root, or CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON (running as uid %d)\n",
			(int)geteuid());
		return 1;
	}
	o.color = pick_color(&o);
	install_signals();
	o.stop_signal = &stop_signal;
	rc = run(&o);
	wr_log_close_file();
	codegen_shutdown();
	return rc;
}
