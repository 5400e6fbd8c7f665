/* commands.c - what the shell does with typed text: hand it to the
 * command interpreter and act on the result it returns.
 *
 * Nothing here decides what a command means; that is tracer/command.c.
 * The shell's share is presentation: echo the command, colour failures,
 * open the script editor for `trace TARGET`, the diagnosis view for
 * `diag`, clear the output for `clear`, and point the source panel at a
 * probe that was just added.  Editing a target that already has a probe
 * replaces that probe once the new text is accepted, so a rejected edit
 * never loses the running one.
 */
#include "shell.h"
#include "tracer/command.h"
#include "tracer/session.h"
#include "cmdline.h"
#include "diagview.h"
#include "editor.h"
#include "output.h"
#include "pager.h"
#include "source.h"
#include "stacksview.h"
#include "util/clock.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define EDITOR_INDENT "    "

static const char keys_help[] =
	"\n"
	"keys:\n"
	"  Tab, Shift-Tab   next, previous panel (Tab completes while the command line\n"
	"                   has text: commands, topics, probe ids, functions, files)\n"
	"  PgUp, PgDn       scroll the output (from the command line too)\n"
	"  Home, End        top, bottom of the focused panel; End follows new events\n"
	"  Up, Down         command history; scroll in the output and source panels\n"
	"  Ctrl-R           search the command history\n"
	"  F1 this help  F2 source panel on/off  F3 pause the output  F4 top stacks\n"
	"  F5 diagnosis view (also the `diag` command)\n"
	"  Ctrl-C twice     quit: every probe is detached\n"
	"output panel:      what is typed goes to the command line; F3 pauses it,\n"
	"                   or resumes it: events keep arriving and wait, counted\n"
	"                   in its title, and then appear in order\n"
	"source panel:      /  search, n N  next, previous match, [ ]  other probes\n"
	"script editor:     Ctrl-S  add the probe, Esc  cancel, Ctrl-K  cut to line end\n"
	"diagnosis view:    Left Right  probe, Up Down  place, Enter  sample and\n"
	"                   unwind row, Esc  close\n"
	"top stacks view:   F4 or `stacks live`: what `count bt` counts, read again\n"
	"                   every second; s  sort by count or by function names,\n"
	"                   c  collapse stacks of the same functions, Esc F4  close\n";

/* Show @text as typed: the prompt before its first line, the continuation
 * prompt before the others. */
static void echo_command(struct shell *sh, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	bool first = true;

	while (*text) {
		size_t n = strcspn(text, "\n");

		strbuf_addf(&sb, "%s%.*s\n", first ? SHELL_PROMPT : SHELL_CONT_PROMPT, (int)n, text);
		text += n + (text[n] == '\n');
		first = false;
	}
	output_add(sh->out, sb.buf, ROLE_ECHO);
	strbuf_release(&sb);
}

/* The history keeps a block of several lines as one line, each line
 * break and the indentation after it turned into one space, unless a `//`
 * comment would then swallow what follows it. */
static void remember(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *nl = strchr(text, '\n');

	if (nl && nl[strspn(nl, " \t\n")] && strstr(text, "//"))
		return;
	for (const char *p = text; *p; p++) {
		if (*p != '\n') {
			strbuf_addch(&sb, *p);
			continue;
		}
		while (p[1] == ' ' || p[1] == '\t')
			p++;
		if (p[1])
			strbuf_addch(&sb, ' ');
	}
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		strbuf_setlen(&sb, sb.len - 1);
	cmdline_remember(sb.buf);
	strbuf_release(&sb);
}

/* Point the source panel at the probe a command added (@id, 0: none). */
static void show_new_probe(struct shell *sh, unsigned id)
{
	if (id)
		source_show_probe(sh->src, sh->s, id);
	source_sync(sh->src, sh->s);
}

static void open_editor(struct shell *sh, const char *target)
{
	struct probe *p = NULL, *each;
	char *text, *title;

	session_for_each_probe(each, sh->s)
		if (strcmp(probe_target(each), target) == 0)
			p = each;
	if (p) {
		text = xstrdup(probe_source(p));
		title = xasprintf("editing probe %u (%s): Ctrl-S replaces it", probe_id(p), target);
	} else {
		text = xasprintf("trace %s {\n" EDITOR_INDENT "\n}", target);
		title = xasprintf("new probe at %s", target);
	}
	editor_free(sh->editor);
	sh->editor = editor_new(title, text, p ? 1 : 2);
	sh->editor_replaces = p ? probe_id(p) : 0;
	source_show_target(sh->src, sh->s, target);
	free(title);
	free(text);
}

static void act(struct shell *sh, const struct cmd_result *res, const struct strbuf *out)
{
	switch (res->status) {
	case CMD_FAILED:
		output_add(sh->out, out->buf, ROLE_ERROR);
		break;
	case CMD_QUIT:
		sh->quit = true;
		break;
	case CMD_EDIT:
		open_editor(sh, res->edit_target);
		break;
	case CMD_WAIT_TIME:
	case CMD_WAIT_EVENTS:
		output_add(sh->out, "events stream into this panel all the time; `wait` is for --batch",
			   ROLE_DIM);
		break;
	case CMD_CLEAR:
		output_clear(sh->out);
		break;
	case CMD_DIAG:
		shell_open_diag(sh);
		break;
	case CMD_STACKS_LIVE:
		shell_open_stacks(sh);
		break;
	case CMD_OK:
		output_add(sh->out, out->buf, ROLE_NORMAL);
		break;
	}
}

void shell_run_command(struct shell *sh, const char *text)
{
	struct strbuf out = STRBUF_INIT;
	struct cmd_result res;

	echo_command(sh, text);
	remember(text);
	command_run(sh->s, text, NULL, &out, &res);
	act(sh, &res, &out);
	show_new_probe(sh, res.first_added);
	output_scroll_end(sh->out);
	cmd_result_release(&res);
	strbuf_release(&out);
	sh->dirty = true;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

void shell_submit_line(struct shell *sh, const char *line)
{
	char *text;

	if (!sh->pending.len && blank(line))
		return;
	strbuf_addf(&sh->pending, "%s\n", line);
	if (command_is_incomplete(sh->pending.buf)) {
		cmdline_set_prompt(SHELL_CONT_PROMPT);
		return;
	}
	cmdline_set_prompt(SHELL_PROMPT);
	text = strbuf_detach(&sh->pending);
	shell_run_command(sh, text);
	free(text);
}

/* ---- the editor ---- */

void shell_close_editor(struct shell *sh)
{
	editor_free(sh->editor);
	sh->editor = NULL;
	sh->editor_replaces = 0;
	sh->dirty = true;
}

/* The edit was accepted: the probe it was made from goes. */
static void replace_old(struct shell *sh)
{
	struct strbuf out = STRBUF_INIT;
	struct cmd_result res;
	char *cmd;

	if (!sh->editor_replaces || !session_probe(sh->s, sh->editor_replaces))
		return;
	cmd = xasprintf("delete %u", sh->editor_replaces);
	command_run(sh->s, cmd, NULL, &out, &res);
	output_add(sh->out, out.buf, res.status == CMD_FAILED ? ROLE_ERROR : ROLE_NORMAL);
	cmd_result_release(&res);
	strbuf_release(&out);
	free(cmd);
}

void shell_submit_editor(struct shell *sh)
{
	struct strbuf out = STRBUF_INIT;
	struct cmd_result res;
	char *text = editor_text(sh->editor);

	command_run(sh->s, text, "<editor>", &out, &res);
	if (res.status == CMD_FAILED) {
		editor_set_error(sh->editor, out.buf);
	} else if (res.status == CMD_EDIT) {
		editor_set_error(sh->editor, "the probe needs its statements in braces: "
				 "trace TARGET { ... }");
	} else {
		echo_command(sh, text);
		remember(text);
		act(sh, &res, &out);
		replace_old(sh);
		shell_close_editor(sh);
		show_new_probe(sh, res.first_added);
		output_scroll_end(sh->out);
	}
	cmd_result_release(&res);
	strbuf_release(&out);
	free(text);
	sh->dirty = true;
}

/* ---- views ---- */

void shell_open_diag(struct shell *sh)
{
	diagview_free(sh->diag);
	sh->diag = diagview_new(source_probe(sh->src));
	sh->dirty = true;
}

void shell_open_stacks(struct shell *sh)
{
	stacksview_free(sh->stacks);
	sh->stacks = stacksview_new();
	stacksview_refresh(sh->stacks, sh->s, now_seconds(), true);
	sh->dirty = true;
}

void shell_open_help(struct shell *sh)
{
	struct strbuf text = STRBUF_INIT;

	command_help(NULL, &text);
	strbuf_addstr(&text, keys_help);
	pager_free(sh->help);
	sh->help = pager_new("help", text.buf);
	strbuf_release(&text);
	sh->dirty = true;
}
