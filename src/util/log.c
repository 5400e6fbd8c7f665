/* log.c - the log sink and its default (stderr, "wraith: " prefix). */
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void default_sink(enum wr_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "wraith: %s%s\n", level == WR_LOG_WARN ? "warning: " : "", msg);
}

static wr_log_sink_fn sink = default_sink;
static void *sink_ctx;
static enum wr_log_level max_level = WR_LOG_WARN;
static FILE *log_file;

void wr_log_set_sink(wr_log_sink_fn fn, void *ctx)
{
	sink = fn ? fn : default_sink;
	sink_ctx = fn ? ctx : NULL;
}

void wr_log_set_level(enum wr_log_level level)
{
	max_level = level;
}

enum wr_log_level wr_log_get_level(void)
{
	return max_level;
}

int wr_log_open_file(const char *path)
{
	FILE *f = fopen(path, "a");

	if (!f)
		return -errno;
	wr_log_close_file();
	log_file = f;
	return 0;
}

void wr_log_close_file(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

void wr_logv(enum wr_log_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	char *buf;
	size_t n;

	if (level > max_level && !log_file)
		return;
	/* Messages can be long (a verifier log): no fixed buffer. */
	if (vasprintf(&buf, fmt, ap) < 0)
		return;
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* The file gets everything, so a verifier log can go there without
	 * flooding the terminal. */
	if (log_file) {
		fprintf(log_file, "[%s] %s\n", names[level], buf);
		fflush(log_file);
	}
	if (level <= max_level)
		sink(level, buf, sink_ctx);
	free(buf);
}

void wr_log(enum wr_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wr_logv(level, fmt, ap);
	va_end(ap);
}
