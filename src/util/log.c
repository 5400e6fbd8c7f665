/* log.c - the log sink and its default (stderr, "wraith: " prefix). */
#include "util/log.h"
#include "util/safefile.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int wr_log_open_file(const char *path, struct strbuf *why)
{
	/* Root appends here, and the log may name private paths: never write
	 * through a planted link, and keep a new log to its owner. */
	int fd = safe_file_open_append(path, 0600, 0, why);
	FILE *f;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "a");
	if (!f) {
		int err = -errno;

		close(fd);
		if (why)
			strbuf_addstr(why, strerror(-err));
		return err;
	}
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

static _Thread_local struct wr_log_deferred *deferred;

static void emit(enum wr_log_level level, const char *text)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	/* The file gets everything, so a verifier log can go there without
	 * flooding the terminal. */
	if (log_file) {
		fprintf(log_file, "[%s] %s\n", names[level], text);
		fflush(log_file);
	}
	if (level <= max_level)
		sink(level, text, sink_ctx);
}

void wr_log_defer(struct wr_log_deferred *d)
{
	deferred = d;
}

void wr_log_replay(struct wr_log_deferred *d)
{
	for (size_t i = 0; i < d->n; i++) {
		emit(d->v[i].level, d->v[i].text);
		free(d->v[i].text);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* Keep @text (taken over) in this thread's deferred list; false when out
 * of memory (the message is then dropped: logging never aborts). */
static bool keep(enum wr_log_level level, char *text)
{
	struct wr_log_deferred *d = deferred;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct wr_log_msg *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return false;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = (struct wr_log_msg){ level, text };
	return true;
}

void wr_logv(enum wr_log_level level, const char *fmt, va_list ap)
{
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
	if (deferred) {
		if (!keep(level, buf))
			free(buf);
		return;
	}
	emit(level, buf);
	free(buf);
}

void wr_log(enum wr_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wr_logv(level, fmt, ap);
	va_end(ap);
}
