/* recover.c - failed reads of an event made again from memory that cannot
 * have changed (see recover.h).
 *
 * What the wire says of a failed read, per argument kind:
 * - WR_ARG_CSTR, WR_ARG_ATTACH with WR_ARG_POINTEE_ERROR: the pointer is
 *   the argument's value; the string is read up to the probe's limit, NUL
 *   included, as bpf_probe_read_user_str would have;
 *   a wide string's (WR_ARG_AUX_WIDE) as many bytes as the probe reads;
 * - WR_ARG_BYTES with WR_ARG_READ_ERROR: the probe puts the address it
 *   failed at in the first 8 bytes (0 when an earlier read failed and the
 *   address is not known); len is the size it meant to read;
 * - WR_ARG_DUMP with WR_ARG_READ_ERROR: the address is the value, the
 *   length asked is aux (cut at WR_DUMP_MAX);
 * - a scalar with WR_ARG_READ_ERROR: the address is the value (0 when an
 *   earlier read failed), aux its size; the probe zero-extends what it
 *   reads, and sign-extends a signed integer.
 */
#include "tracer/recover.h"
#include "proc/stable.h"
#include "util/log.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *new_buf(struct read_recovery *r, size_t len)
{
	r->bufs = xgrow(r->bufs, &r->cap_bufs, r->n_bufs + 1, sizeof(*r->bufs));
	return r->bufs[r->n_bufs++] = xcalloc(1, len ? len : 1);
}

static void drop_bufs(struct read_recovery *r)
{
	for (size_t i = 0; i < r->n_bufs; i++)
		free(r->bufs[i]);
	r->n_bufs = 0;
}

/* All @len bytes at @addr, or nothing. */
static const uint8_t *read_all(struct read_recovery *r, pid_t pid, uint64_t addr, size_t len)
{
	uint8_t *buf = new_buf(r, len);

	if (proc_stable_read(r->cache, pid, addr, buf, len) != len)
		return NULL;
	wr_debug("read %zu bytes at 0x%llx of process %d again (read-only memory)", len,
		 (unsigned long long)addr, (int)pid);
	return buf;
}

/* A string of at most @max bytes with its NUL, cut as the probe cuts one:
 * @max - 1 characters and a NUL. */
static void recover_string(struct read_recovery *r, pid_t pid, struct ev_arg *a, size_t max)
{
	uint8_t *buf = new_buf(r, max);
	size_t n = proc_stable_read(r->cache, pid, a->value, buf, max);
	uint8_t *nul = memchr(buf, 0, n);

	if (!nul && n < max)
		return; /* the readable bytes ended before the string did */
	if (!nul)
		buf[max - 1] = 0;
	a->data = buf;
	a->len = nul ? (size_t)(nul - buf) + 1 : max;
	a->status = WR_ARG_OK;
	r->recovered++;
}

/* A wide string's bytes (WR_ARG_AUX_WIDE): as many as the probe reads at
 * most, or as can be read; the renderer finds where it ends. */
static void recover_wide(struct read_recovery *r, pid_t pid, struct ev_arg *a)
{
	uint8_t *buf = new_buf(r, WR_ARG_WSTR_MAX);
	size_t n = proc_stable_read(r->cache, pid, a->value, buf, WR_ARG_WSTR_MAX);

	if (!n || n > WR_ARG_WSTR_MAX)
		return;
	a->data = buf;
	a->len = n;
	a->status = WR_ARG_OK;
	r->recovered++;
}

static void recover_bytes(struct read_recovery *r, pid_t pid, struct ev_arg *a)
{
	uint64_t addr;
	const uint8_t *got;

	if (!a->len || a->len > 256)
		return;
	memcpy(&addr, a->data, sizeof(addr)); /* the slot is padded to 8 bytes */
	if (!addr || !(got = read_all(r, pid, addr, a->len)))
		return;
	a->data = got;
	memcpy(&a->value, got, a->len < 8 ? a->len : 8);
	a->status = WR_ARG_OK;
	r->recovered++;
}

static void recover_dump(struct read_recovery *r, pid_t pid, struct ev_arg *a)
{
	size_t n = a->aux < WR_DUMP_MAX ? a->aux : WR_DUMP_MAX;
	const uint8_t *got;

	if (!a->value || !n || !(got = read_all(r, pid, a->value, n)))
		return;
	a->data = got;
	a->len = n;
	a->status = WR_ARG_OK;
	r->recovered++;
}

static bool is_scalar(uint8_t kind)
{
	return kind == WR_ARG_I64 || kind == WR_ARG_U64 || kind == WR_ARG_BOOL || kind == WR_ARG_CHAR ||
	       kind == WR_ARG_PTR || kind == WR_ARG_ENUM || kind == WR_ARG_HEX;
}

static void recover_scalar(struct read_recovery *r, pid_t pid, struct ev_arg *a)
{
	uint64_t v = 0;
	const uint8_t *got;
	unsigned shift;

	if (!a->value || !a->aux || a->aux > 8 || !(got = read_all(r, pid, a->value, a->aux)))
		return;
	memcpy(&v, got, a->aux);
	shift = 64 - 8 * a->aux;
	if (a->kind == WR_ARG_I64 && shift)
		v = (uint64_t)((int64_t)(v << shift) >> shift);
	a->value = v;
	a->status = WR_ARG_OK;
	r->recovered++;
}

static void recover_arg(struct read_recovery *r, pid_t pid, struct ev_arg *a)
{
	if (is_scalar(a->kind) && a->status == WR_ARG_READ_ERROR) {
		recover_scalar(r, pid, a);
		return;
	}
	if ((a->kind == WR_ARG_CSTR || a->kind == WR_ARG_ATTACH) && a->status == WR_ARG_POINTEE_ERROR &&
	    (a->aux & WR_ARG_AUX_WIDE))
		recover_wide(r, pid, a);
	else if (a->kind == WR_ARG_CSTR && a->status == WR_ARG_POINTEE_ERROR)
		recover_string(r, pid, a, WR_ARG_STR_MAX);
	else if (a->kind == WR_ARG_ATTACH && a->status == WR_ARG_POINTEE_ERROR)
		recover_string(r, pid, a, WR_ARG_ATTACH_STR);
	else if (a->kind == WR_ARG_BYTES && a->status == WR_ARG_READ_ERROR)
		recover_bytes(r, pid, a);
	else if (a->kind == WR_ARG_DUMP && a->status == WR_ARG_READ_ERROR)
		recover_dump(r, pid, a);
}

void recover_reads(struct read_recovery *r, struct event *ev)
{
	pid_t pid = (pid_t)ev->hdr.pid;

	drop_bufs(r);
	for (size_t i = 0; i < ev->n_items; i++) {
		struct ev_print *p = &ev->items[i].print;

		if (ev->items[i].type != WR_ITEM_PRINT)
			continue;
		for (size_t k = 0; k < p->n_args; k++) {
			struct ev_arg *a = &p->args[k];

			if (!r->cache && (a->status == WR_ARG_READ_ERROR || a->status == WR_ARG_POINTEE_ERROR ||
					  a->n_attach))
				r->cache = proc_stable_cache_new();
			if (r->cache)
				recover_arg(r, pid, a);
			/* the decoder's own array: the event lends it as const */
			for (size_t j = 0; r->cache && j < a->n_attach; j++)
				recover_arg(r, pid, (struct ev_arg *)&a->attach[j]);
		}
	}
}

void recover_release(struct read_recovery *r)
{
	drop_bufs(r);
	free(r->bufs);
	proc_stable_cache_free(r->cache);
	memset(r, 0, sizeof(*r));
}
