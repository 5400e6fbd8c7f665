/* log.h - the one log sink.
 *
 * Layer rule: util/ depends on nothing else in wraith.  No module prints to
 * stdout or stderr directly; they call wr_log() and the front end (TUI panel,
 * or stderr in script and batch mode) installs the sink that decides where
 * messages go.  The default sink writes warnings and errors to stderr.
 */
#ifndef WRAITH_UTIL_LOG_H
#define WRAITH_UTIL_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum wr_log_level {
	WR_LOG_ERROR,
	WR_LOG_WARN,
	WR_LOG_INFO,
	WR_LOG_DEBUG,
};

/* A sink receives one complete message without a trailing newline.  The
 * text is borrowed for the duration of the call. */
typedef void (*wr_log_sink_fn)(enum wr_log_level level, const char *msg, void *ctx);

/* Install a sink (NULL restores the default stderr sink) and the most
 * verbose level that is passed to it. */
void wr_log_set_sink(wr_log_sink_fn fn, void *ctx);
void wr_log_set_level(enum wr_log_level level);

/* Mirror every message, debug included, into @path as well, appending;
 * a new file is created 0600.  The path is opened with safe_file_open_append()
 * (no planted links, no file or directory of another user).  Returns 0 or a
 * negative code, with the reason appended to @why (may be NULL). */
struct strbuf;
int wr_log_open_file(const char *path, struct strbuf *why);
void wr_log_close_file(void);

/* Messages logged by a helper thread are kept, not sent (a sink such as
 * the TUI's is not thread-safe): the thread calls wr_log_defer(@d) first,
 * and the thread that owns the sink later calls wr_log_replay(@d), which
 * sends them in order and empties @d. */
struct wr_log_deferred {
	struct wr_log_msg { enum wr_log_level level; char *text; } *v;
	size_t n, cap;
};
void wr_log_defer(struct wr_log_deferred *d);
void wr_log_replay(struct wr_log_deferred *d);

void wr_log(enum wr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wr_logv(enum wr_log_level level, const char *fmt, va_list ap);

#define wr_error(...) wr_log(WR_LOG_ERROR, __VA_ARGS__)
#define wr_warn(...)  wr_log(WR_LOG_WARN, __VA_ARGS__)
#define wr_info(...)  wr_log(WR_LOG_INFO, __VA_ARGS__)
#define wr_debug(...) wr_log(WR_LOG_DEBUG, __VA_ARGS__)

#endif
