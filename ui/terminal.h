/* terminal.h - whether the terminal can hold the shell.
 *
 * Layer rule: ui/ only.  Kept apart from the rest of ui/ because it needs
 * <term.h>, whose capability macros (lines, columns, ...) must not leak
 * into other files.
 */
#ifndef WRAITH_UI_TERMINAL_H
#define WRAITH_UI_TERMINAL_H

/* 0 when stdin and stdout are a terminal that TERM names, known to
 * terminfo, that can address the cursor (the panels need it).  Otherwise
 * one message says what is wrong and what to do instead, and the result is
 * the exit status (2). */
int terminal_check(void);

#endif
