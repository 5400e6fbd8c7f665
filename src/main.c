/* main.c - wraith's command line: parse options, pick a mode (interactive
 * shell, script mode, --batch, --dry-run), and run it.
 *
 * Exit status: 0 ok, 1 runtime failure, 2 usage or script error.  Every
 * mode ends through the same path that frees the session, which detaches
 * every uprobe and closes every BPF program and map.
 */
#include "config.h"

#include "frontend/batch.h"
#include "frontend/cli.h"
#include "frontend/complete.h"
#include "frontend/options.h"
#include "frontend/script.h"
#include "render/render.h"
#include "tracer/session.h"
#include "ui/shell.h"
#include "util/error.h"
#include "util/log.h"
#include "util/safefile.h"
#include "util/strbuf.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
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
"  -p, --pid PID             trace the process PID (a thread's id: that thread only)\n"
"  -t, --target PATH         trace every process that maps PATH (executable or .so;\n"
"                            a name without '/' is a program in $PATH or a library\n"
"                            by short name: libc); probes in its libraries fire in\n"
"                            its processes only; with -p, probes go in module PATH\n"
"                            of that process only\n"
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
"                            one event per line, print arguments as typed values)\n"
"      --color WHEN          auto (default), always or never; NO_COLOR is honoured\n"
"      --relative-time       pretty headers show seconds since start, not wall time\n"
"      --script-output-events-per-sec N\n"
"                            show at most N events a second, count the rest on\n"
"                            stderr (0: no limit; default 10000 on a terminal,\n"
"                            no limit into a pipe or file)\n"
"\n"
"Limits:\n"
"      --max-events N        stop after N events\n"
"      --timeout SECONDS     stop after SECONDS (fractions allowed)\n"
"      --backtrace-depth N   frames per bt, 1..1024 (default 128)\n"
"      --print-elements N    elements of a container or array and characters of a\n"
"                            string shown, as gdb's print elements (default 200,\n"
"                            0: as many as the probe can read, 8192)\n"
"      --print-depth N       structs and containers nested deeper show {...}, as\n"
"                            gdb's print max-depth (default 20)\n"
"      --pending             with -p: a probe on a function no library of the process\n"
"                            defines yet waits for one to be loaded (else: an error)\n"
"\n"
"Kernel:\n"
"      --transport KIND      ringbuf (default) or perf (perf event array)\n"
"      --force-perf-event-array  the same as --transport perf\n"
"      --fault-in            load probes sleepable, so a read of memory that is not\n"
"                            resident (never touched, swapped out) faults the page\n"
"                            in instead of failing; the traced thread waits for the\n"
"                            fault (off by default; Linux 6.1+, ringbuf transport)\n"
"      --buffer-size SIZE    event buffer for all CPUs together, e.g. 64M (K, M, G\n"
"                            suffixes; 64K..1G; default 4M per CPU, 8M..256M)\n"
"      --stack-entries N     distinct stacks `count bt` can count (default 65536)\n"
"      --probe-cache WHEN    on (default) or off: keep compiled probes (and the kernel\n"
"                            BTF cut, the names of modules' globals) on disk; a later\n"
"                            run compiling a probe of the same shape (the same\n"
"                            statements reading the same places) takes it from there\n"
"                            (-v says which)\n"
"      --probe-cache-dir DIR  where (default ~/.cache/wraith/probes; root's always\n"
"                            under root's home); used only if it is the user's own\n"
"                            and no one else may write to it\n"
"\n"
"Debug info:\n"
"  -d, --debug-file FILE     the debug file of the main module (-t's module, else the\n"
"                            executable), checked by build-id or debuglink CRC\n"
"      --allow-loose-debug-match  use a debug file that does not match, with a warning\n"
"      --debug-dir DIR       look for debug files under DIR (repeatable; default\n"
"                            /usr/lib/debug)\n"
"      --debuginfod WHEN     off (default) or on (ask: the same as on): fetch debug\n"
"                            files missing here from debuginfod servers\n"
"      --debuginfod-url URL  a server (repeatable; default $DEBUGINFOD_URLS)\n"
"      --debuginfod-cache-dir DIR  where downloads are kept\n"
"      --debuginfod-timeout-secs S  give up after S seconds without data (default 5;\n"
"                            0: never)\n"
"      --debuginfod-max-size BYTES  skip larger files (0: no cap)\n"
"      --status              before tracing, report per module where its debug info\n"
"                            and unwind tables come from and what that allows\n"
"      --no-status           no report (the default; overrides [script] status)\n"
"\n"
"Counted stacks (count bt), written when the run ends:\n"
"      --folded FILE         folded stacks for flame graphs (- for stdout)\n"
"      --pprof FILE          a gzip-compressed pprof profile\n"
"\n"
"Diagnostics:\n"
"  -v, --verbose             show debug messages (libbpf, verifier logs) on stderr\n"
"      --log-level LEVEL     error, warn (default), info, debug or trace (= debug)\n"
"      --log-file FILE       append every message, debug included, to FILE (created 0600)\n"
"      --unsafe-paths        let --log-file, `save` and the shell history write through\n"
"                            symbolic or hard links and into files or directories of\n"
"                            other users (refused by default: wraith runs as root)\n"
"  -q, --quiet               no status lines on stderr, only errors\n"
"      --config FILE         read settings from FILE (TOML) instead of\n"
"                            $XDG_CONFIG_HOME/wraith/config.toml\n"
"  -h, --help                show this help\n"
"  -V, --version             show the version\n"
"\n"
"Script language: trace <function | file:line | 0xADDR | module:0xADDR> { ... } with\n"
"print \"fmt {} {:x} {:x.16} {:s.*}\", expr...;  bt; / backtrace;\n"
"[raw|args|full|inline|noinline]  if/else  let;  bt args / bt full: each frame's\n"
"parameters / and locals, with values, as gdb.  count bt [, KEY]; counts hits by\n"
"stack in the kernel (no event per hit).  Expressions read the program's\n"
"variables (req.name, p->next, p[i], *ptr, cast(x, \"T *\")); strncmp(p, \"GET\", n),\n"
"starts_with(p, \"/\"), memcmp(p, q, n), memcmp(p, hex(\"de ad\")).  See wraith(1) and\n"
"doc/script-reference.md.\n"
"Settings: command line over environment over the configuration file over\n"
"built-in defaults; the file takes GhostScope's keys ([ebpf] backtrace_depth = 4),\n"
"see wraith(1).  Exit status: 0 ok, 1 runtime failure, 2 usage or script error.\n";

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

static int check_options(const struct cli_options *o)
{
	int modes = !!o->script + !!o->script_file + !!o->batch_file;

	if (!o->pid && !o->path)
		return cli_usage_error("nothing to trace: give -p PID or -t PATH");
	if (modes > 1)
		return cli_usage_error("-s, --script-file and --batch are alternatives: give one");
	if (o->keep_going && !o->batch_file)
		return cli_usage_error("--keep-going only applies to --batch");
	if (o->dry_run && !modes)
		return cli_usage_error("--dry-run needs a script (-s, --script-file or --batch)");
	if ((o->folded_file || o->pprof_file) && !modes)
		return cli_usage_error("--folded and --pprof write what a script counted: give -s, "
				       "--script-file or --batch (in the shell, use the `stacks` command)");
	return 0;
}

static enum span_color pick_color(const struct cli_options *o)
{
	if (o->color_mode && strcmp(o->color_mode, "always") == 0)
		return SPAN_COLOR_ANSI;
	if (o->color_mode && strcmp(o->color_mode, "never") == 0)
		return SPAN_COLOR_NONE;
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		return SPAN_COLOR_NONE;
	return isatty(STDOUT_FILENO) ? SPAN_COLOR_ANSI : SPAN_COLOR_NONE;
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
	char *script = NULL;
	int err, rc;

	if (!o->batch_file && (o->script || o->script_file) && (rc = script_mode_load(o, &script)))
		return rc;
	err = cli_open_session(o, script, &s);
	if (err) {
		free(script);
		return cli_exit_status(err);
	}
	if (o->batch_file)
		rc = batch_run(o, s);
	else if (script)
		rc = script_mode_run(o, s, script);
	else
		rc = ui_run(s, o);
	cli_close_session(s);
	free(script);
	return rc;
}

/* Everything between the options and the end: checks, log, privilege,
 * the mode.  Returns the exit status. */
static int open_log_file(const char *path)
{
	struct strbuf why = STRBUF_INIT;
	int err = wr_log_open_file(path, &why);

	if (err) {
		fprintf(stderr, "wraith: cannot open log file %s: %s\n", path, why.buf);
		if (err == -WR_EUNSAFE)
			fprintf(stderr, "hint: %s\n", safe_file_force_hint);
	}
	strbuf_release(&why);
	return err;
}

static int start(struct cli_options *o)
{
	int rc;

	if (o->help) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (o->version) {
		printf("wraith %s\n", PACKAGE_VERSION);
		return 0;
	}
	rc = check_options(o);
	if (rc)
		return rc;
	if (o->complete)
		return complete_run(o);
	if (o->log_level >= 0)
		wr_log_set_level((enum wr_log_level)o->log_level);
	o->verbose = o->log_level == WR_LOG_DEBUG;
	safe_file_set_force(o->unsafe_paths);
	if (o->log_file && open_log_file(o->log_file))
		return 2;
	if (!o->dry_run && !privileged()) {
		fprintf(stderr, "wraith: not enough privilege: loading BPF programs and attaching uprobes "
			"needs root, or CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON (running as uid %d)\n",
			(int)geteuid());
		return 1;
	}
	/* The shell's terminal is checked before the target is opened. */
	if (!o->script && !o->script_file && !o->batch_file) {
		rc = terminal_check();
		if (rc)
			return rc;
	}
	o->color = pick_color(o);
	install_signals();
	o->stop_signal = &stop_signal;
	rc = run(o);
	wr_log_close_file();
	session_shutdown();
	return rc;
}

int main(int argc, char **argv)
{
	struct cli_options o = { 0 };
	int rc;

	setlocale(LC_CTYPE, "");
	render_set_utf8(!strcmp(nl_langinfo(CODESET), "UTF-8"));
	rc = cli_options_parse(argc, argv, &o);

	if (!rc)
		rc = start(&o);
	cli_options_release(&o);
	return rc;
}
