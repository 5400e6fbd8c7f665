/* cmdline.c - readline in callback mode behind the shell's command line
 * (see cmdline.h).
 *
 * The shell owns the terminal through curses, so readline must never
 * touch it: terminal preparation is a no-op, its output stream is
 * /dev/null, it installs no signal handlers, and it reads bytes from a
 * queue this module fills with the keys curses decoded (arrow keys become
 * the ANSI sequences readline binds by default).  Lines readline finishes
 * are queued too and taken by the shell after the key is handled, so a
 * command never runs inside readline's own dispatch.
 */
#include "cmdline.h"
#include "draw.h"
#include "util/safefile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define QUEUE_MAX 256
#define HISTORY_MAX 1000

static struct {
	unsigned char queue[QUEUE_MAX]; /* bytes readline has not read yet */
	size_t head, queued;
	char **done;                    /* owned: finished lines, oldest first */
	size_t n_done, cap_done;
	bool eof;
	struct cmdline_hooks hooks;
	char **cands;                   /* borrowed during one completion */
	size_t n_cands, next_cand;
	FILE *devnull;
	char *history;                  /* owned: the history file, or NULL */
	char *prompt;                   /* owned: the prompt readline shows */
} cl;

/* ---- readline's ends ---- */

static int read_byte(FILE *f)
{
	int c;

	(void)f;
	if (!cl.queued)
		return EOF;
	c = cl.queue[cl.head];
	cl.head = (cl.head + 1) % QUEUE_MAX;
	cl.queued--;
	return c;
}

static int input_available(void)
{
	return cl.queued > 0;
}

static void no_redisplay(void)
{
	/* cmdline_draw() draws from readline's state after every key. */
}

static void no_prep(int meta)
{
	(void)meta;
}

static void no_deprep(void)
{
}

static void line_done(char *line)
{
	if (!line) {
		cl.eof = true;
		return;
	}
	cl.done = xgrow(cl.done, &cl.cap_done, cl.n_done + 1, sizeof(*cl.done));
	cl.done[cl.n_done++] = line;
}

/* ---- completion ---- */

static char *next_candidate(const char *text, int state)
{
	(void)text;
	if (!state)
		cl.next_cand = 0;
	if (cl.next_cand >= cl.n_cands)
		return NULL;
	return xstrdup(cl.cands[cl.next_cand++]);
}

/* `source FILE` and `save FILE` fall back to readline's file names. */
static bool wants_files(void)
{
	const char *p = rl_line_buffer;

	while (*p == ' ' || *p == '\t')
		p++;
	return (!strncmp(p, "source ", 7) || !strncmp(p, "save ", 5));
}

static char **attempt_completion(const char *text, int start, int end)
{
	size_t n = 0;
	char **v = cl.hooks.complete(cl.hooks.ctx, rl_line_buffer, (size_t)end, &n);
	char **matches = NULL;

	(void)start;
	rl_attempted_completion_over = !(n == 0 && wants_files());
	if (n == 1 && v[0][0] && v[0][strlen(v[0]) - 1] == ':')
		rl_completion_append_character = '\0'; /* "file.c:" wants a line number next */
	if (n) {
		cl.cands = v;
		cl.n_cands = n;
		matches = rl_completion_matches(text, next_candidate);
		cl.cands = NULL;
		cl.n_cands = 0;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return matches;
}

static void display_matches(char **matches, int n, int max_len)
{
	(void)max_len;
	if (cl.hooks.show_matches && n > 0)
		cl.hooks.show_matches(cl.hooks.ctx, matches + 1, (size_t)n);
}

/* ---- history ---- */

char *cmdline_history_path(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state && state[0] == '/') /* relative values are invalid per the XDG spec */
		return xasprintf("%s/wraith/history", state);
	if (home && *home)
		return xasprintf("%s/.local/state/wraith/history", home);
	return NULL;
}

/* mkdir -p of the directory holding @path, new directories private. */
static int make_parent_dirs(const char *path)
{
	char *dir = xstrdup(path);
	int err = 0;

	for (char *p = strchr(dir + 1, '/'); p && !err; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			err = -errno;
		*p = '/';
	}
	free(dir);
	return err;
}

/* Root writes the history into a user's directory: replace it the safe way
 * (util/safefile.h), private (0600: commands may name private paths). */
static void history_save(void)
{
	struct strbuf text = STRBUF_INIT;
	HIST_ENTRY **list;

	if (!cl.history || make_parent_dirs(cl.history))
		return;
	list = history_list();
	for (size_t i = 0; list && list[i]; i++) {
		strbuf_addstr(&text, list[i]->line);
		strbuf_addch(&text, '\n');
	}
	safe_file_replace(cl.history, text.buf, text.len, 0600, 0, NULL);
	strbuf_release(&text);
}

void cmdline_remember(const char *line)
{
	HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;

	if (!*line || (last && strcmp(last->line, line) == 0))
		return;
	add_history(line);
	using_history(); /* Up and Ctrl-R start from the newest entry */
}

/* ---- set-up ---- */

int cmdline_init(const struct cmdline_hooks *hooks, const char *prompt)
{
	cl.hooks = *hooks;
	cl.devnull = fopen("/dev/null", "w");
	if (!cl.devnull)
		return -errno;
	rl_readline_name = "wraith";
	rl_instream = stdin;
	rl_outstream = cl.devnull;
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = no_prep;
	rl_deprep_term_function = no_deprep;
	rl_getc_function = read_byte;
	rl_input_available_hook = input_available;
	rl_redisplay_function = no_redisplay;
	rl_attempted_completion_function = attempt_completion;
	rl_completion_display_matches_hook = display_matches;
	rl_basic_word_break_characters = " \t\n";
	rl_completer_word_break_characters = " \t\n";
	using_history();
	stifle_history(HISTORY_MAX);
	cl.history = cmdline_history_path();
	if (cl.history)
		read_history(cl.history);
	cl.prompt = xstrdup(prompt);
	rl_callback_handler_install(cl.prompt, line_done);
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("enable-bracketed-paste", "off");
	return 0;
}

void cmdline_release(void)
{
	rl_callback_handler_remove();
	history_save();
	clear_history();
	for (size_t i = 0; i < cl.n_done; i++)
		free(cl.done[i]);
	free(cl.done);
	free(cl.history);
	free(cl.prompt);
	if (cl.devnull)
		fclose(cl.devnull);
	rl_outstream = NULL;
	memset(&cl, 0, sizeof(cl));
}

/* ---- keys and lines ---- */

static void queue_bytes(const char *b, size_t n)
{
	for (size_t i = 0; i < n && cl.queued < QUEUE_MAX; i++)
		cl.queue[(cl.head + cl.queued++) % QUEUE_MAX] = (unsigned char)b[i];
}

/* The bytes a terminal sends for @key, as readline's default bindings
 * know them; NULL for keys readline has no use for. */
static const char *key_bytes(int key)
{
	switch (key) {
	case KEY_LEFT: return "\033[D";
	case KEY_RIGHT: return "\033[C";
	case KEY_UP: return "\033[A";
	case KEY_DOWN: return "\033[B";
	case KEY_HOME: return "\033[H";
	case KEY_END: return "\033[F";
	case KEY_BACKSPACE: return "\177";
	case KEY_ENTER: return "\r";
	case KEY_DC: return rl_end ? "\004" : NULL; /* delete-char, but never EOF */
	default: return NULL;
	}
}

void cmdline_feed(int key)
{
	char byte;
	const char *seq = key_bytes(key);

	if (seq) {
		queue_bytes(seq, strlen(seq));
	} else if (key >= 0 && key < 256) {
		byte = (char)key;
		queue_bytes(&byte, 1);
	}
	while (cl.queued)
		rl_callback_read_char();
}

char *cmdline_take(bool *eof)
{
	char *line;

	*eof = false;
	if (!cl.n_done) {
		*eof = cl.eof;
		cl.eof = false;
		return NULL;
	}
	line = cl.done[0];
	memmove(cl.done, cl.done + 1, (cl.n_done - 1) * sizeof(*cl.done));
	cl.n_done--;
	return line;
}

void cmdline_set_prompt(const char *prompt)
{
	free(cl.prompt);
	cl.prompt = xstrdup(prompt);
	rl_set_prompt(cl.prompt);
}

void cmdline_clear(void)
{
	rl_callback_sigcleanup(); /* leave a reverse search or a half-typed key sequence */
	rl_replace_line("", 1);
	rl_point = rl_end = 0;
	rl_set_prompt(cl.prompt); /* a search may have replaced the shown prompt */
}

bool cmdline_empty(void)
{
	return rl_end == 0;
}

/* ---- drawing ---- */

/* The prompt without readline's invisible-text markers. */
static char *visible_prompt(void)
{
	const char *p = rl_display_prompt ? rl_display_prompt : rl_prompt ? rl_prompt : "";
	struct strbuf sb = STRBUF_INIT;

	for (; *p; p++)
		if (*p != RL_PROMPT_START_IGNORE && *p != RL_PROMPT_END_IGNORE)
			strbuf_addch(&sb, *p);
	return strbuf_detach(&sb);
}

void cmdline_draw(WINDOW *w, bool focus)
{
	char *prompt = visible_prompt();
	const char *line = rl_line_buffer ? rl_line_buffer : "";
	size_t point = (size_t)rl_point, end = (size_t)rl_end, skip = 0;
	int cols = getmaxx(w), x = 0;
	size_t pw = draw_width(prompt, strlen(prompt));

	werase(w);
	if (pw + draw_width(line, point) < (size_t)cols - 1) {
		x = draw_text(w, 0, 0, prompt, strlen(prompt), cols, ROLE_ECHO);
	} else {
		/* Scroll horizontally: drop the prompt and the start of the line. */
		while (skip < point && draw_width(line + skip, point - skip) > (size_t)cols - 3)
			skip += draw_char_len(line + skip, end - skip);
		x = draw_text(w, 0, 0, "<", 1, cols, ROLE_DIM);
	}
	draw_text(w, 0, x, line + skip, end - skip, cols - x, ROLE_NORMAL);
	wmove(w, 0, x + (int)draw_width(line + skip, point - skip));
	(void)focus;
	free(prompt);
}
