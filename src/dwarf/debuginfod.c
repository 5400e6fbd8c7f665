/* debuginfod.c - elfutils' debuginfod client behind dw_debuginfod_find()
 * (see debuginfod.h).
 *
 * One client per query keeps no state between modules; the client's own
 * cache makes a second run, or a second module with the same build-id,
 * cost no download.  While a download runs its progress goes to the front
 * end's progress line; a query that ends without a file says why in one
 * warning.
 *
 * The client library is opened with dlopen() on the first query, not
 * linked: it brings libcurl and its TLS, Kerberos and LDAP libraries, 30 of
 * the 45 shared objects wraith would otherwise map and relocate at every
 * exec, for a feature only --debuginfod-url or DEBUGINFOD_URLS turns on.
 */
#include "dwarf/debuginfod.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct query {
	const char *name;
	void (*progress)(void *ctx, const char *text);
	void *ctx;
	long shown;     /* bytes when progress was last shown */
};

void dw_debuginfod_configure(const char *const *urls, size_t n_urls, const char *cache_dir,
			     unsigned timeout, uint64_t max_size)
{
	struct strbuf sb = STRBUF_INIT;
	char num[32];

	for (size_t i = 0; i < n_urls; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", urls[i]);
	if (n_urls)
		setenv("DEBUGINFOD_URLS", sb.buf, 1);
	if (cache_dir)
		setenv("DEBUGINFOD_CACHE_PATH", cache_dir, 1);
	snprintf(num, sizeof(num), "%u", timeout);
	setenv("DEBUGINFOD_TIMEOUT", num, 1);
	if (max_size) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)max_size);
		setenv("DEBUGINFOD_MAXSIZE", num, 1);
	}
	strbuf_release(&sb);
}

/* The client's entry points, from the library opened on first use. */
static struct {
	bool tried;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
} client;

/* Opens libdebuginfod once a process (kept open: a client may have
 * started threads of its own); false, with a warning, when it cannot. */
static bool client_open(void)
{
	static bool ok;
	void *h;

	if (client.tried)
		return ok;
	client.tried = true;
	h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		wr_warn("debuginfod: cannot load the client library: %s (install libdebuginfod1)",
			dlerror());
		return false;
	}
	*(void **)&client.begin = dlsym(h, "debuginfod_begin");
	*(void **)&client.end = dlsym(h, "debuginfod_end");
	*(void **)&client.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&client.get_user_data = dlsym(h, "debuginfod_get_user_data");
	*(void **)&client.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&client.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	ok = client.begin && client.end && client.set_user_data && client.get_user_data &&
	     client.set_progressfn && client.find_debuginfo;
	if (!ok)
		wr_warn("debuginfod: libdebuginfod.so.1 lacks the client functions wraith calls");
	return ok;
}

static int on_progress(debuginfod_client *c, long done, long total)
{
	struct query *q = client.get_user_data(c);
	char line[256];

	if (!q->progress || done - q->shown < 16384)
		return 0; /* go on */
	q->shown = done;
	if (total > 0)
		snprintf(line, sizeof(line), "downloading debug info of %s from debuginfod: %ld of "
			 "%ld KiB", q->name, done / 1024, total / 1024);
	else
		snprintf(line, sizeof(line), "downloading debug info of %s from debuginfod: %ld KiB",
			 q->name, done / 1024);
	q->progress(q->ctx, line);
	return 0;
}

int dw_debuginfod_find(const char *id, const char *name,
		       void (*progress)(void *ctx, const char *text), void *ctx, char **path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct query q = { name, progress, ctx, -16384 };
	debuginfod_client *c;
	int fd;

	*path = NULL;
	if (!urls || !*urls) {
		wr_warn("debuginfod: no server to ask for %s (give --debuginfod-url or set "
			"DEBUGINFOD_URLS)", name);
		return -ENOENT;
	}
	if (!client_open())
		return -ENOSYS;
	c = client.begin();
	if (!c)
		return -ENOMEM;
	client.set_user_data(c, &q);
	client.set_progressfn(c, on_progress);
	fd = client.find_debuginfo(c, (const unsigned char *)id, 0, path);
	client.end(c);
	if (progress && q.shown >= 0)
		progress(ctx, NULL);
	if (fd >= 0) {
		close(fd);
		wr_info("debuginfod: debug info of %s is %s", name, *path);
		return 0;
	}
	if (fd == -ENOENT)
		wr_warn("debuginfod: no debug info for %s (build-id %s) on %s", name, id, urls);
	else
		wr_warn("debuginfod: cannot get the debug info of %s (build-id %s) from %s: %s", name,
			id, urls, strerror(-fd));
	return fd;
}
