/* shell.c - the interactive shell's set-up, event loop and key routing.
 *
 * One thread, one ppoll(2): the terminal, the session's event descriptor
 * (there is none until the first `trace` starts the runtime), a 250 ms
 * timer that refreshes the status bar and lets the session re-read the
 * target's mappings, and a pipe that catches anything a library writes to
 * stderr, which would otherwise scribble over the screen.  SIGINT,
 * SIGTERM, SIGHUP and SIGWINCH are blocked except inside ppoll, so a
 * signal always wakes the loop and never lands in the middle of a
 * command; main.c's handlers record SIGINT/SIGTERM in o->stop_signal and
 * curses' own handler turns SIGWINCH into KEY_RESIZE.
 *
 * Keys are read by curses (which decodes function keys) and routed: to an
 * open full-screen view, else to the focused panel.  The command line is
 * readline (cmdline.c); finished lines go to commands.c.
 */
#include "shell.h"
#include "frontend/cli.h"
#include "tracer/command.h"
#include "tracer/session.h"
#include "cmdline.h"
#include "diagview.h"
#include "draw.h"
#include "editor.h"
#include "output.h"
#include "pager.h"
#include "source.h"
#include "stacksview.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define OUTPUT_LINES 5000
#define TICK_MS 250
#define EVENTS_PER_ROUND 2000   /* rendered per loop turn, so keys stay responsive */
#define FRAME_SECONDS (1.0 / 30) /* at most this many redraws per second for events */
#define CTRL_C_WINDOW 2.0

/* What the loop needs besides the shell's state. */
struct loop {
	struct shell *sh;
	SCREEN *screen;
	sigset_t wait_mask;     /* the mask inside ppoll: our signals unblocked */
	sigset_t saved_mask;
	int timer_fd;
	int err_pipe[2];        /* stderr is redirected into [1] while the screen is up */
	int saved_stderr;
	struct strbuf err_line; /* a partial line read from the pipe */
	double last_draw;
};

/* ---- hooks the session and the log call ---- */

static void on_event(void *ctx, const struct span_list *event)
{
	struct shell *sh = ctx;

	output_add_event(sh->out, event);
	sh->dirty = true;
}

static void on_log(enum wr_log_level level, const char *msg, void *ctx)
{
	struct shell *sh = ctx;

	output_add(sh->out, msg, level == WR_LOG_ERROR ? ROLE_ERROR
			       : level == WR_LOG_WARN ? ROLE_WARN : ROLE_DIM);
	sh->dirty = true;
}

static void draw(struct shell *sh);

/* Unwind tables of big libraries take a while: say so as it happens. */
static void on_progress(void *ctx, const char *text)
{
	struct shell *sh = ctx;

	statusbar_message(&sh->bar, text ? text : "", text ? 60 : 0, now_seconds());
	draw(sh);
}

static char **complete(void *ctx, const char *line, size_t point, size_t *n)
{
	struct shell *sh = ctx;

	return command_complete(sh->s, line, point, n);
}

/* Several completions: list them in the output panel. */
static void show_matches(void *ctx, char **matches, size_t n)
{
	struct shell *sh = ctx;
	struct strbuf sb = STRBUF_INIT;
	size_t shown = n < 200 ? n : 200, width = 0, per_row;
	int cols = sh->layout.cols > 0 ? sh->layout.cols : 80;

	for (size_t i = 0; i < shown; i++)
		if (strlen(matches[i]) > width)
			width = strlen(matches[i]);
	per_row = (size_t)cols / (width + 2) ? (size_t)cols / (width + 2) : 1;
	for (size_t i = 0; i < shown; i++)
		strbuf_addf(&sb, "%-*s%s", (int)(width + 2), matches[i],
			    (i + 1) % per_row == 0 || i + 1 == shown ? "\n" : "");
	if (n > shown)
		strbuf_addf(&sb, "... and %zu more\n", n - shown);
	output_add(sh->out, sb.buf, ROLE_DIM);
	output_scroll_end(sh->out);
	strbuf_release(&sb);
	sh->dirty = true;
}

/* ---- drawing ---- */

static void draw_panels(struct shell *sh, double now)
{
	struct layout *l = &sh->layout;

	if (l->source) {
		source_draw(sh->src, sh->s, l->source, sh->focus == FOCUS_SOURCE);
		wnoutrefresh(l->source);
	}
	output_draw(sh->out, l->output, sh->focus == FOCUS_OUTPUT);
	wnoutrefresh(l->output);
	statusbar_draw(&sh->bar, sh->s, l->status, now);
	wnoutrefresh(l->status);
	cmdline_draw(l->command, sh->focus == FOCUS_COMMAND);
	wnoutrefresh(l->command); /* last: the cursor stays on the command line */
	curs_set(sh->focus == FOCUS_COMMAND && !source_in_search(sh->src));
}

static void draw_view(struct shell *sh, double now)
{
	struct layout *l = &sh->layout;

	statusbar_draw(&sh->bar, sh->s, l->status, now);
	wnoutrefresh(l->status);
	if (sh->help)
		pager_draw(sh->help, l->full);
	else if (sh->stacks)
		stacksview_draw(sh->stacks, l->full);
	else if (sh->diag)
		diagview_draw(sh->diag, sh->s, l->full);
	else
		editor_draw(sh->editor, l->full);
	wnoutrefresh(l->full);
	curs_set(sh->editor && !sh->help && !sh->diag && !sh->stacks);
}

static void draw(struct shell *sh)
{
	double now = now_seconds();
	static const char small[] = "terminal too small";

	if (sh->too_small) {
		werase(sh->layout.full);
		draw_text(sh->layout.full, 0, 0, small, sizeof(small) - 1, getmaxx(sh->layout.full),
			  ROLE_ALERT);
		wnoutrefresh(sh->layout.full);
	} else if (sh->help || sh->diag || sh->stacks || sh->editor) {
		draw_view(sh, now);
	} else {
		draw_panels(sh, now);
	}
	doupdate();
	sh->dirty = false;
}

static void relayout(struct shell *sh)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	sh->too_small = layout_build(&sh->layout, rows, cols, sh->want_source) != 0;
	if (!sh->layout.source_shown && sh->focus == FOCUS_SOURCE)
		sh->focus = FOCUS_OUTPUT;
	clearok(curscr, TRUE);
	sh->dirty = true;
}

/* ---- keys ---- */

static void focus_step(struct shell *sh, int dir)
{
	int n = 3, f = (int)sh->focus;

	do
		f = (f + n + dir) % n;
	while (f == FOCUS_SOURCE && !sh->layout.source_shown);
	sh->focus = (enum shell_focus)f;
}

static void feed_command(struct shell *sh, int key)
{
	char *line;
	bool eof;

	sh->focus = FOCUS_COMMAND;
	cmdline_feed(key);
	while ((line = cmdline_take(&eof)) && !sh->quit) {
		shell_submit_line(sh, line);
		free(line);
	}
	free(line);
	if (eof)
		statusbar_message(&sh->bar, "`quit` or Ctrl-C twice exits", 3, now_seconds());
}

static bool is_text_key(int key)
{
	return key >= 32 && key < 256 && key != 127;
}

static void output_key(struct shell *sh, int key)
{
	int page = sh->layout.output ? getmaxy(sh->layout.output) - 2 : 10;

	switch (key) {
	case KEY_UP: output_scroll(sh->out, 1); break;
	case KEY_DOWN: output_scroll(sh->out, -1); break;
	case KEY_PPAGE: output_scroll(sh->out, page); break;
	case KEY_NPAGE: output_scroll(sh->out, -page); break;
	case KEY_HOME: output_scroll_home(sh->out); break;
	case KEY_END: output_scroll_end(sh->out); break;
	default:
		/* typing goes to the command line, every printable key of it:
		 * the panel has no one-letter keys that would swallow some */
		if (is_text_key(key) || key == '\r' || key == '\n')
			feed_command(sh, key);
		break;
	}
}

static void panel_key(struct shell *sh, int key)
{
	int page = sh->layout.output ? getmaxy(sh->layout.output) - 2 : 10;

	switch (sh->focus) {
	case FOCUS_SOURCE:
		if (!source_key(sh->src, sh->s, key) && is_text_key(key))
			feed_command(sh, key);
		break;
	case FOCUS_OUTPUT:
		output_key(sh, key);
		break;
	case FOCUS_COMMAND:
		if (key == KEY_PPAGE || key == KEY_NPAGE)
			output_scroll(sh->out, key == KEY_PPAGE ? page : -page);
		else
			feed_command(sh, key);
		break;
	}
}

/* Keys of an open full-screen view; false when none is open. */
static bool view_key(struct shell *sh, int key)
{
	if (sh->help) {
		if (!pager_key(sh->help, key)) {
			pager_free(sh->help);
			sh->help = NULL;
		}
	} else if (sh->stacks) {
		if (!stacksview_key(sh->stacks, sh->s, key, now_seconds())) {
			stacksview_free(sh->stacks);
			sh->stacks = NULL;
		}
	} else if (sh->diag) {
		if (!diagview_key(sh->diag, sh->s, key)) {
			diagview_free(sh->diag);
			sh->diag = NULL;
		}
	} else if (sh->editor) {
		if (key == KEY_F(1))
			shell_open_help(sh);
		else
			switch (editor_key(sh->editor, key)) {
			case EDITOR_SUBMIT: shell_submit_editor(sh); break;
			case EDITOR_CANCEL: shell_close_editor(sh); break;
			case EDITOR_NONE: break;
			}
	} else {
		return false;
	}
	return true;
}

static void handle_key(struct shell *sh, int key)
{
	sh->dirty = true;
	if (key == KEY_RESIZE) {
		relayout(sh);
		return;
	}
	if (view_key(sh, key))
		return;
	if (key == KEY_F(1)) {
		shell_open_help(sh);
	} else if (key == KEY_F(2)) {
		sh->want_source = !sh->want_source;
		relayout(sh);
	} else if (key == KEY_F(3)) {
		output_pause(sh->out, !output_paused(sh->out));
		statusbar_message(&sh->bar, output_paused(sh->out) ? "output paused; F3 resumes" : "",
				  output_paused(sh->out) ? 3 : 0, now_seconds());
	} else if (key == KEY_F(4)) {
		shell_open_stacks(sh);
	} else if (key == KEY_F(5)) {
		shell_open_diag(sh);
	} else if (key == KEY_BTAB) {
		focus_step(sh, -1);
	} else if (key == '\t' && !(sh->focus == FOCUS_COMMAND && !cmdline_empty())) {
		if (!(sh->focus == FOCUS_SOURCE && source_in_search(sh->src)))
			focus_step(sh, 1);
	} else {
		panel_key(sh, key);
	}
}

static void read_keys(struct shell *sh)
{
	int key;

	while (!sh->quit && (key = wgetch(sh->keys)) != ERR)
		handle_key(sh, key);
}

/* ---- signals ---- */

/* The first Ctrl-C drops what is being typed and warns; a second within
 * two seconds quits. */
static void interrupt(struct shell *sh)
{
	double now = now_seconds();

	if (sh->ctrl_c_at && now - sh->ctrl_c_at <= CTRL_C_WINDOW) {
		sh->quit = true;
		return;
	}
	sh->ctrl_c_at = now;
	if (!sh->editor) {
		strbuf_reset(&sh->pending);
		cmdline_set_prompt(SHELL_PROMPT);
		cmdline_clear();
	}
	statusbar_message(&sh->bar, "press Ctrl-C again to quit", CTRL_C_WINDOW, now);
	sh->dirty = true;
}

static void check_signals(struct loop *lp)
{
	struct shell *sh = lp->sh;
	int sig = *sh->o->stop_signal;

	if (!sig)
		return;
	*sh->o->stop_signal = 0;
	if (sig == SIGINT)
		interrupt(sh);
	else
		sh->quit = true; /* SIGTERM, SIGHUP */
}

static void block_signals(struct loop *lp)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &lp->saved_mask);
	lp->wait_mask = lp->saved_mask;
	sigdelset(&lp->wait_mask, SIGINT);
	sigdelset(&lp->wait_mask, SIGTERM);
	sigdelset(&lp->wait_mask, SIGHUP);
	sigdelset(&lp->wait_mask, SIGWINCH);
}

/* ---- events, timer, stderr ---- */

static void pump_events(struct shell *sh)
{
	int n;

	session_set_budget(sh->s, EVENTS_PER_ROUND);
	n = session_poll(sh->s, 0);
	session_set_budget(sh->s, UINT64_MAX);
	if (n < 0 && n != -EINTR)
		wr_error("reading events failed: %s", strerror(-n));
}

static void on_tick(struct loop *lp)
{
	uint64_t expirations;

	if (read(lp->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	pump_events(lp->sh); /* also lets the session notice new mappings */
	statusbar_tick(&lp->sh->bar, lp->sh->s, now_seconds());
	if (lp->sh->stacks)
		stacksview_refresh(lp->sh->stacks, lp->sh->s, now_seconds(), false);
	if (session_target_exited(lp->sh->s) && !lp->sh->exit_noted) {
		struct strbuf msg = STRBUF_INIT;

		session_end_text(lp->sh->s, &msg);
		strbuf_addstr(&msg, "; no more events will come");
		statusbar_message(&lp->sh->bar, msg.buf, 3600, now_seconds());
		strbuf_release(&msg);
		lp->sh->exit_noted = true;
	}
	lp->sh->dirty = true;
}

/* Whole lines that arrived on the redirected stderr go to the output. */
static void read_stderr(struct loop *lp)
{
	struct strbuf *l = &lp->err_line;
	char buf[4096], *nl;
	ssize_t n;
	size_t keep;

	while ((n = read(lp->err_pipe[0], buf, sizeof(buf))) > 0)
		strbuf_add(l, buf, (size_t)n);
	nl = l->len ? memrchr(l->buf, '\n', l->len) : NULL;
	if (!nl)
		return;
	*nl = '\0';
	output_add(lp->sh->out, l->buf, ROLE_WARN);
	keep = l->len - (size_t)(nl + 1 - l->buf);
	memmove(l->buf, nl + 1, keep);
	strbuf_setlen(l, keep);
	lp->sh->dirty = true;
}

/* ---- the loop ---- */

/* Wait for anything to happen, then handle it.  Returns 0, or -errno when
 * waiting itself failed. */
static int wait_once(struct loop *lp)
{
	struct shell *sh = lp->sh;
	struct pollfd fds[4] = {
		{ STDIN_FILENO, POLLIN, 0 }, { lp->timer_fd, POLLIN, 0 },
		{ lp->err_pipe[0], POLLIN, 0 }, { session_event_fd(sh->s), POLLIN, 0 },
	};
	struct timespec ts = { 0, 0 }, *timeout = NULL;
	double wait = lp->last_draw + FRAME_SECONDS - now_seconds();
	int n;

	if (!session_backlog_waiting(sh->s) && sh->dirty && wait > 0)
		ts.tv_nsec = (long)(wait * 1e9);
	if (session_backlog_waiting(sh->s) || sh->dirty)
		timeout = &ts;
	n = ppoll(fds, 4, timeout, &lp->wait_mask);
	if (n < 0 && errno != EINTR)
		return -errno;
	check_signals(lp);
	if (fds[0].revents & (POLLHUP | POLLERR))
		sh->quit = true; /* the terminal went away */
	read_keys(sh);
	if (n > 0 && fds[1].revents)
		on_tick(lp);
	if (n > 0 && fds[2].revents)
		read_stderr(lp);
	if ((n > 0 && fds[3].revents) || session_backlog_waiting(sh->s))
		pump_events(sh);
	return 0;
}

static void run_loop(struct loop *lp)
{
	struct shell *sh = lp->sh;

	while (!sh->quit) {
		double now = now_seconds();
		int err;

		if (sh->dirty && now - lp->last_draw >= FRAME_SECONDS) {
			draw(sh);
			lp->last_draw = now;
		}
		err = wait_once(lp);
		if (err) {
			wr_error("the shell's event loop failed: %s", strerror(-err));
			break;
		}
	}
}

/* ---- set-up and tear-down ---- */

static int redirect_stderr(struct loop *lp)
{
	if (pipe2(lp->err_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	fcntl(lp->err_pipe[1], F_SETPIPE_SZ, 1 << 20); /* a full pipe drops, never blocks */
	fflush(stderr);
	lp->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (lp->saved_stderr < 0 || dup2(lp->err_pipe[1], STDERR_FILENO) < 0)
		return -errno;
	return 0;
}

/* Put stderr back and pass on what is still in the pipe. */
static void restore_stderr(struct loop *lp)
{
	char buf[4096];
	ssize_t n;

	if (lp->saved_stderr >= 0) {
		fflush(stderr);
		dup2(lp->saved_stderr, STDERR_FILENO);
		close(lp->saved_stderr);
		if (lp->err_line.len && write(STDERR_FILENO, lp->err_line.buf, lp->err_line.len) < 0)
			lp->err_line.len = 0;
		while (lp->err_pipe[0] >= 0 && (n = read(lp->err_pipe[0], buf, sizeof(buf))) > 0)
			if (write(STDERR_FILENO, buf, (size_t)n) < 0)
				break;
	}
	for (int i = 0; i < 2; i++)
		if (lp->err_pipe[i] >= 0)
			close(lp->err_pipe[i]);
}

static bool want_color(const struct cli_options *o)
{
	const char *no_color = getenv("NO_COLOR");

	if (no_color && *no_color)
		return false;
	return has_colors() && !(o->color_mode && strcmp(o->color_mode, "never") == 0);
}

static int start_screen(struct loop *lp)
{
	struct shell *sh = lp->sh;
	struct termios t;

	lp->screen = newterm(NULL, stdout, stdin);
	if (!lp->screen)
		return -ENOTTY;
	set_term(lp->screen);
	cbreak();
	noecho();
	nonl();
	/* Ctrl-S submits the script editor: the terminal must not take it for XOFF. */
	if (tcgetattr(STDIN_FILENO, &t) == 0) {
		t.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
		def_prog_mode();
	}
	set_escdelay(25);
	draw_theme_init(want_color(sh->o));
	sh->keys = newwin(1, 1, 0, 0);
	keypad(sh->keys, TRUE);
	nodelay(sh->keys, TRUE);
	wnoutrefresh(sh->keys); /* untouched from now on: reading keys never redraws it */
	relayout(sh);
	return 0;
}

static int timer_start(struct loop *lp)
{
	struct itimerspec its = { { 0, TICK_MS * 1000000L }, { 0, TICK_MS * 1000000L } };

	lp->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (lp->timer_fd < 0 || timerfd_settime(lp->timer_fd, 0, &its, NULL))
		return -errno;
	return 0;
}

static void greet(struct shell *sh)
{
	const struct cli_options *o = sh->o;
	char *msg;

	if (o->pid)
		msg = xasprintf("wraith: tracing process %d", (int)o->pid);
	else
		msg = xasprintf("wraith: tracing every process of %s", o->path);
	output_add(sh->out, msg, ROLE_ECHO);
	output_add(sh->out, "`trace FUNCTION` opens the script editor (or `trace FUNCTION { bt; }`), "
		   "`help` lists the commands, F1 shows the keys.", ROLE_DIM);
	free(msg);
}

static int start(struct loop *lp)
{
	struct shell *sh = lp->sh;
	struct cmdline_hooks hooks = { complete, show_matches, sh };
	int err;

	block_signals(lp);
	err = timer_start(lp);
	if (!err)
		err = redirect_stderr(lp);
	if (!err)
		err = start_screen(lp);
	if (!err)
		err = cmdline_init(&hooks, SHELL_PROMPT);
	if (err)
		return err;
	session_set_sink(sh->s, &(struct session_sink){ on_event, sh });
	session_set_progress(sh->s, on_progress, sh);
	wr_log_set_sink(on_log, sh);
	statusbar_tick(&sh->bar, sh->s, now_seconds());
	return 0;
}

static void stop(struct loop *lp)
{
	struct shell *sh = lp->sh;

	wr_log_set_sink(NULL, NULL);
	session_set_sink(sh->s, NULL);
	session_set_progress(sh->s, NULL, NULL);
	if (sh->keys) {
		cmdline_release();
		delwin(sh->keys);
	}
	layout_release(&sh->layout);
	if (lp->screen) {
		endwin();
		delscreen(lp->screen);
	}
	restore_stderr(lp);
	if (lp->timer_fd >= 0)
		close(lp->timer_fd);
	sigprocmask(SIG_SETMASK, &lp->saved_mask, NULL);
}

int ui_run(struct session *s, const struct cli_options *o)
{
	struct shell sh = { .s = s, .o = o, .focus = FOCUS_COMMAND, .want_source = true };
	struct loop lp = { .sh = &sh, .timer_fd = -1, .err_pipe = { -1, -1 }, .saved_stderr = -1 };
	int err, rc = 0;

	rc = terminal_check();
	if (rc)
		return rc;
	setlocale(LC_CTYPE, "");
	strbuf_init(&sh.pending);
	strbuf_init(&lp.err_line);
	sh.out = output_new(OUTPUT_LINES);
	sh.src = source_new();
	err = start(&lp);
	if (!err) {
		greet(&sh);
		run_loop(&lp);
	}
	stop(&lp);
	if (err) {
		wr_error("cannot start the interactive shell: %s", strerror(-err));
		rc = 1;
	}
	editor_free(sh.editor);
	diagview_free(sh.diag);
	stacksview_free(sh.stacks);
	pager_free(sh.help);
	source_free(sh.src);
	output_free(sh.out);
	strbuf_release(&sh.pending);
	strbuf_release(&lp.err_line);
	return rc;
}
