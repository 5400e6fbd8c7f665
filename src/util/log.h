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
enum wr_log_level wr_log_get_level(void);

/* Mirror every message at or above @level (and everything at debug level
 * when verbose) into @path as well.  Returns 0 or -errno. */
int wr_log_open_file(const char *path);
void wr_log_close_file(void);

void wr_log(enum wr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wr_logv(enum wr_log_level level, const char *fmt, va_list ap);

#define wr_error(...) wr_log(WR_LOG_ERROR, __VA_ARGS__)
#define wr_warn(...)  wr_log(WR_LOG_WARN, __VA_ARGS__)
#define wr_info(...)  wr_log(WR_LOG_INFO, __VA_ARGS__)
#define wr_debug(...) wr_log(WR_LOG_DEBUG, __VA_ARGS__)

#endif
