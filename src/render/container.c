/* container.c - the C++ standard library's values as gdb's pretty-printers
 * show them (libstdc++'s printers.py: the same heads, element order and
 * limits), from the memory the probe copied at the hit (wire.h: walks).
 *
 * A printed value that held containers came with WR_ARG_MEM copies: the
 * value whole (WR_MEM_F_ROOT) and each block the walk reached.  They make
 * a snapshot of the process's memory, looked up by address: a container
 * is shown by following its pointers through the snapshot as its printer
 * would through the process.  What the snapshot lacks was cut (the
 * element limit, the event's size: `...`); a copy whose read failed shows
 * `<unreadable>`.  A pointer that leads in circles ends at the limit.
 */
#include "dwarf/stdlib.h"
#include "render/render_priv.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct render_snap {
	const struct ev_arg **m; /* by address */
	size_t n;
	const struct ev_arg *root;
	bool own_root; /* render_snap_self()'s: root is the snap's own */
};

static int by_addr(const void *a, const void *b)
{
	const struct ev_arg *x = *(const struct ev_arg *const *)a, *y = *(const struct ev_arg *const *)b;

	return x->value < y->value ? -1 : x->value > y->value;
}

struct render_snap *render_snap_new(const struct ev_arg *a)
{
	struct render_snap *s;
	size_t n = 0;

	for (size_t i = 0; i < a->n_attach; i++)
		n += a->attach[i].kind == WR_ARG_MEM;
	if (!n)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->m = xcalloc(n, sizeof(*s->m));
	for (size_t i = 0; i < a->n_attach; i++) {
		const struct ev_arg *c = &a->attach[i];

		if (c->kind != WR_ARG_MEM)
			continue;
		s->m[s->n++] = c;
		if ((c->aux & WR_MEM_F_ROOT) && c->status == WR_ARG_OK && !s->root)
			s->root = c;
	}
	qsort(s->m, s->n, sizeof(*s->m), by_addr);
	return s;
}

void render_snap_free(struct render_snap *s)
{
	if (!s)
		return;
	if (s->own_root)
		free((void *)s->root);
	free(s->m);
	free(s);
}

struct render_snap *render_snap_self(const struct ev_arg *a)
{
	struct render_snap *s = xcalloc(1, sizeof(*s));
	struct ev_arg *self = xcalloc(1, sizeof(*self));

	*self = (struct ev_arg){ .kind = WR_ARG_MEM, .status = WR_ARG_OK, .aux = WR_MEM_F_ROOT,
				 .value = WR_WALK_LOCAL, .data = a->data, .len = a->len };
	s->m = xcalloc(1, sizeof(*s->m));
	s->m[s->n++] = self;
	s->root = self;
	s->own_root = true;
	return s;
}

const struct ev_arg *render_snap_root(const struct render_snap *s)
{
	return s ? s->root : NULL;
}

const uint8_t *render_snap_find(const struct render_snap *s, uint64_t addr, size_t n, bool *failed)
{
	size_t lo = 0, hi = s ? s->n : 0;

	*failed = false;
	while (lo < hi) { /* the first copy starting after addr */
		size_t mid = (lo + hi) / 2;

		if (s->m[mid]->value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && lo - k <= 64;) {
		const struct ev_arg *c = s->m[k];

		if (c->status != WR_ARG_OK) {
			if (c->value == addr)
				*failed = true;
			continue;
		}
		if (addr - c->value <= c->len && n <= c->len - (addr - c->value))
			return c->data + (addr - c->value);
	}
	return NULL;
}

const struct ev_arg *render_snap_string(const struct render_snap *s, uint64_t addr)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->m[i]->value == addr && !(s->m[i]->aux & (WR_MEM_F_ROOT | WR_MEM_F_WALKED)))
			return s->m[i];
	return NULL;
}

const struct ev_arg *render_snap_static(const struct render_snap *s, uint64_t tag)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->m[i]->value == tag && (s->m[i]->aux & WR_MEM_F_STATIC))
			return s->m[i];
	return NULL;
}

const struct ev_arg *render_snap_torn(const struct render_snap *s, uint64_t addr)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->m[i]->value == addr && (s->m[i]->aux & WR_MEM_F_TORN) && s->m[i]->status == WR_ARG_OK)
			return s->m[i];
	return NULL;
}

static bool kept(const uint8_t *gone, size_t bit, int64_t off, size_t bytes)
{
	return off >= 0 && !render_bits_gone(gone, bit + (size_t)off * 8, bytes * 8, false);
}

bool render_std_kept(const struct dw_std *s, const uint8_t *data, size_t len, const uint8_t *gone, size_t bit)
{
	size_t width = s->char_size ? s->char_size : 1, n;

	if (!gone)
		return true;
	if (s->kind != DW_STD_STRING)
		return kept(gone, bit, 0, len);
	if (!s->libcxx)
		return kept(gone, bit, s->a, 8) && kept(gone, bit, s->b, 8);
	if (!kept(gone, bit, 0, 1))
		return false;
	if (data[0] & 1) /* libc++'s long form */
		return kept(gone, bit, s->a, 8) && kept(gone, bit, s->b, 8);
	n = data[0] >> 1;
	return (n + 1) * width <= len && kept(gone, bit, (int64_t)width, n * width);
}

/* ---- what a container shows ---- */

struct cview {
	const struct render_snap *snap;
	const struct render_value_ctx *vc;
	int depth;
	const uint8_t *data; /* the container's own bytes */
	size_t len;
	uint64_t addr;       /* and where they are */
	const struct dw_std *s;
	struct strbuf *out;  /* the text; in JSON mode a scratch buffer */
	size_t shown;        /* elements so far */
	unsigned limit;      /* elements shown at most */
	struct render_limits lim; /* a map's key and value are two elements */
	/* JSON mode (render_container_data()): the object the container
	 * is, its "elements" array open, whether a part was cut. */
	struct span_list *json;
	bool in_elements;
	bool cut;
	bool bracketed;      /* gdb's own Rust slice: `[1, 2]`, not ` = {1, 2}` */
};

/* Before the first element: ` = {`, or ` [` for gdb's own slice. */
static const char *opening(const struct cview *c)
{
	return c->bracketed ? " [" : " = {";
}

/* ---- JSON: {"kind": ..., fields, "elements": [...], "truncated": ...} */

static void jfield(struct cview *c, const char *key, uint64_t v)
{
	if (!c->json)
		return;
	span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, key);
	span_dataf(c->json, SPAN_NUMBER, "%" PRIu64, v);
}

/* Before an element: the "elements" array, opened once. */
static void jelements(struct cview *c)
{
	if (!c->json || c->in_elements)
		return;
	span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "elements");
	span_open(c->json, SPAN_ARRAY);
	c->in_elements = true;
}

/* A part not shown: `...` in the text, "truncated" in JSON; an element
 * whose read failed (@failed) is null in JSON. */
static void jmissing(struct cview *c, bool failed)
{
	if (!c->json)
		return;
	if (failed) {
		jelements(c);
		span_null(c->json, SPAN_LITERAL);
	} else {
		c->cut = true;
	}
}


static uint64_t word(const struct cview *c, int64_t off, size_t size)
{
	if (off < 0 || (uint64_t)off + size > c->len)
		return 0;
	return render_read_uint(c->data + off, size);
}

/* A map's element: C++'s std::pair (first, second) or Rust's tuple
 * (__0, __1). */
static void pair_members(const struct dw_type *t, const struct dw_member **k, uint64_t *ko,
			 const struct dw_member **v, uint64_t *vo)
{
	*k = dw_type_member(t, "first", ko);
	*v = dw_type_member(t, "second", vo);
	if (!*k && !*v) {
		*k = dw_type_member(t, "__0", ko);
		*v = dw_type_member(t, "__1", vo);
	}
}

static void counted(const char *what, uint64_t n, struct strbuf *out)
{
	strbuf_addf(out, "%s with %" PRIu64 " element%s", what, n, n == 1 ? "" : "s");
}

/* Before the next element: `, ` or ` = {`; false when the limit ends
 * the list there (`...`). */
static bool element_head(struct cview *c)
{
	strbuf_addstr(c->out, c->shown ? ", " : opening(c));
	if (c->shown < c->limit)
		return true;
	strbuf_setlen(c->out, c->out->len - (c->shown ? 2 : strlen(opening(c))));
	strbuf_addstr(c->out, c->shown ? "..." : opening(c));
	if (!c->shown)
		strbuf_addstr(c->out, "...");
	jmissing(c, false);
	c->cut = true;
	return false;
}

/* A map's entry, its key of type @kt at @ka and value of @vt at @va
 * (NULL: none): `[key] = value`, in JSON [key, value]; false when an odd
 * limit ends it between them, as gdb's does. */
static bool entry(struct cview *c, const struct dw_type *kt, uint64_t ka, const struct dw_type *vt, uint64_t va)
{
	if (c->json) {
		jelements(c);
		span_open(c->json, SPAN_ARRAY);
		if (kt)
			render_value_data_at(c->snap, kt, ka, &c->lim, c->depth, c->json);
		if (vt)
			render_value_data_at(c->snap, vt, va, &c->lim, c->depth, c->json);
		span_close(c->json);
		return true;
	}
	strbuf_addch(c->out, '[');
	if (kt)
		render_value_at(c->snap, kt, ka, c->vc, c->depth, c->out);
	strbuf_addstr(c->out, "] = ");
	if (c->shown + 1 == c->limit && c->lim.elements % 2) {
		strbuf_addstr(c->out, "...");
		c->shown = c->limit;
		return false;
	}
	if (vt)
		render_value_at(c->snap, vt, va, c->vc, c->depth, c->out);
	return true;
}

/* The next element (of a map: its pair, shown [key] = value) at @addr;
 * false when the limit or a missing copy ends the list. */
static bool element(struct cview *c, const struct dw_type *t, uint64_t addr)
{
	if (!element_head(c))
		return false;
	if (c->s->pairs) {
		uint64_t ko = 0, vo = 0;
		const struct dw_member *k, *v;

		pair_members(t, &k, &ko, &v, &vo);
		if (!entry(c, k ? k->type : NULL, addr + ko, v ? v->type : NULL, addr + vo))
			return false;
	} else if (c->json) {
		jelements(c);
		render_value_data_at(c->snap, t, addr, &c->lim, c->depth, c->json);
	} else {
		if (c->s->shape == DW_SHAPE_INDEXED || c->s->kind == DW_STD_TREE || c->s->unordered)
			strbuf_addf(c->out, "[%zu] = ", c->shown);
		render_value_at(c->snap, t, addr, c->vc, c->depth, c->out);
	}
	c->shown++;
	return true;
}

/* After the elements, if there were any: `}` (`]`). */
static void close_list(struct cview *c)
{
	if (c->shown || c->cut)
		strbuf_addch(c->out, c->bracketed ? ']' : '}');
	else if (c->bracketed)
		strbuf_addstr(c->out, " []");
}

/* The node at @node, copied whole; NULL when it is not in the snapshot,
 * which then says so in place: `<unreadable>` when its copy failed, else
 * `...` (cut). */
static const uint8_t *node_at(struct cview *c, uint64_t node, size_t size)
{
	bool failed;
	const uint8_t *p = render_snap_find(c->snap, node, size, &failed);

	if (!p && c->shown < c->limit) {
		strbuf_addstr(c->out, c->shown ? ", " : opening(c));
		strbuf_addstr(c->out, failed ? "<unreadable>" : "...");
		jmissing(c, failed);
		c->shown++;
	}
	return p;
}

/* @n characters at @bytes (NULL: not copied, @failed: unreadable), @more
 * of them cut: JSON's string, or gdb's quoted text, or with {:s} the
 * characters alone; not copied, `...` or the context's marker. */
/* The bytes of one of a string's characters: 2 or 4 for a wide one. */
static unsigned char_width(const struct cview *c)
{
	return c->s->kind == DW_STD_STRING && c->s->char_size > 1 ? c->s->char_size : 1;
}

/* A string's @n characters at @bytes (NULL: not copied, or @failed). */
static void text_out(struct cview *c, const uint8_t *bytes, uint64_t n, bool more, bool failed)
{
	unsigned width = char_width(c);
	struct strbuf u = STRBUF_INIT;

	if (c->json && bytes && width > 1) {
		render_units_utf8(bytes, n, width, false, &u);
		span_datan(c->json, SPAN_STRING, u.buf ? u.buf : "", u.len);
	} else if (c->json && bytes) {
		span_datan(c->json, SPAN_STRING, (const char *)bytes, n);
	} else if (c->json) {
		span_null(c->json, SPAN_LITERAL);
	} else if (!bytes) {
		strbuf_addstr(c->out, failed ? "<unreadable>" : c->vc && c->vc->not_copied ? c->vc->not_copied : "...");
	} else if (c->vc && c->vc->bare_text) { /* to the first NUL, as {:s} of a char * */
		render_units_utf8(bytes, n, width, true, c->out);
	} else {
		/* gdb's C printer leaves out one NUL that ends a string it
		 * shows whole (a std::string of length 1 holding '\0' is "") */
		if (c->s->c_text && !more && n && !render_read_uint(bytes + (n - 1) * width, width))
			n--;
		render_units(bytes, n, width, c->s->char_prefix, more, c->out);
	}
	strbuf_release(&u);
}

/* The head of a string at @p whose read failed where a page could not be
 * read (WR_MEM_F_TORN), as gdb shows it: `"head"...<error: Cannot access
 * memory at address 0x...>` (the first address not read); in JSON
 * {"head": "...", "unreadable_at": "0x..."}.  False when there is none. */
static bool torn_text(struct cview *c, uint64_t p)
{
	const struct ev_arg *h = render_snap_torn(c->snap, p);
	unsigned width = char_width(c);
	struct strbuf u = STRBUF_INIT;

	if (!h)
		return false;
	if (c->json) {
		render_units_utf8(h->data, h->len / width, width, false, &u);
		span_open(c->json, SPAN_OBJECT);
		span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "head");
		span_datan(c->json, SPAN_STRING, u.buf ? u.buf : "", u.len);
		span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "unreadable_at");
		span_dataf(c->json, SPAN_STRING, "0x%" PRIx64, p + h->len);
		span_close(c->json);
	} else if (c->vc && c->vc->bare_text) {
		render_units_utf8(h->data, h->len / width, width, true, c->out);
		strbuf_addstr(c->out, "...<unreadable>");
	} else {
		render_units(h->data, h->len / width, width, c->s->char_prefix, true, c->out);
		strbuf_addf(c->out, "<error: Cannot access memory at address 0x%" PRIx64 ">", p + h->len);
	}
	strbuf_release(&u);
	return true;
}

static void string_text(struct cview *c)
{
	unsigned width = char_width(c);
	uint64_t p = 0, n;
	const uint8_t *bytes;
	bool failed = false;

	if (c->s->libcxx && !(word(c, 0, 1) & 1)) {
		/* the short form: a byte of length, then the characters at
		 * the next character's place */
		n = word(c, 0, 1) >> 1;
		n = n < (c->len - width) / width ? n : (c->len - width) / width;
		bytes = c->data + width;
	} else {
		p = word(c, c->s->a, 8);
		n = word(c, c->s->b, 8);
		bytes = n ? render_snap_find(c->snap, p, (n < c->limit ? n : c->limit) * width, &failed)
			  : (const uint8_t *)"";
	}
	if (!bytes && failed && torn_text(c, p))
		return;
	text_out(c, bytes, n < c->limit ? n : c->limit, n > c->limit, failed);
}

/* Whether the element at @at (@size bytes) was copied, or is past the
 * limit (element() then says so); else it is shown missing in place. */
static bool copied_element(struct cview *c, uint64_t at, uint64_t size)
{
	bool failed;

	if (render_snap_find(c->snap, at, size, &failed) || c->shown >= c->limit)
		return true;
	strbuf_addstr(c->out, c->shown ? ", " : opening(c));
	strbuf_addstr(c->out, failed ? "<unreadable>" : "...");
	jmissing(c, failed);
	c->shown++;
	return false;
}

static void sequence(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t begin = word(c, s->a, 8), end = word(c, s->b, 8), size = s->elem->size;
	uint64_t n = s->has_count ? end : end >= begin ? (end - begin) / size : 0;
	bool cut = false;

	jfield(c, "length", n);
	if (s->shape == DW_SHAPE_RUST && s->bracketed) {
		strbuf_addstr(c->out, s->label); /* gdb's own: Box<[u8], ...> [1, 2, 3] */
		c->bracketed = true;
	} else if (s->shape == DW_SHAPE_RUST) {
		strbuf_addf(c->out, "%s(size=%" PRIu64 ")", s->label, n);
		if (s->cap_count)
			jfield(c, "capacity", word(c, s->c, 8));
	} else if (s->shape == DW_SHAPE_SPAN) {
		strbuf_addf(c->out, "std::span of length %" PRIu64, n);
	} else {
		strbuf_addf(c->out, "std::vector of length %" PRIu64 ", capacity %" PRIu64, n,
			    (word(c, s->c, 8) - begin) / size);
		jfield(c, "capacity", (word(c, s->c, 8) - begin) / size);
	}
	for (uint64_t i = 0; i < n && !cut; i++) {
		if (!copied_element(c, begin + i * size, size))
			break;
		cut = !element(c, s->elem, begin + i * size);
	}
	close_list(c);
}

/* Rust's VecDeque: `VecDeque(size=3) = {1, 2, 3}`, from the first
 * element around the ring (the probe copied the buffer from its start).
 * Up to rustc 1.66 the ring is tail..head in a power-of-two capacity;
 * since, a first index and a count in any capacity. */
static void ring(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t buf = word(c, s->a, 8), first = word(c, s->b, 8), other = word(c, s->c, 8);
	uint64_t cap = word(c, s->d, 8), size = s->elem->size, n, at;
	bool pow2 = cap && !(cap & (cap - 1));

	if (s->ring_len)
		n = other <= cap ? other : 0;
	else
		n = pow2 ? (other - first) & (cap - 1) : 0;
	strbuf_addf(c->out, "%s(size=%" PRIu64 ")", s->label, n);
	jfield(c, "length", n);
	jfield(c, "capacity", cap);
	for (uint64_t i = 0; i < n; i++) {
		at = buf + (s->ring_len ? (first + i) % cap : (first + i) & (cap - 1)) * size;
		if (!copied_element(c, at, size) || !element(c, s->elem, at))
			break;
	}
	close_list(c);
}

/* Rust's HashMap and HashSet as rust-gdb shows them, in the table's
 * order: `HashMap(size=1) = {[1] = "one"}`, `HashSet(size=1) = {5}`. */
static void hash(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t ctrl = word(c, s->a, 8), n = word(c, s->b, 8) + 1, items = word(c, s->e, 8);
	uint64_t size = s->elem->size, at, ko = (uint64_t)s->c;
	const uint8_t *bytes = NULL;
	bool failed = false;

	strbuf_addf(c->out, "%s(size=%" PRIu64 ")", s->label, items);
	jfield(c, "count", items);
	n = n > WR_WALK_COPY_MAX ? WR_WALK_COPY_MAX : n;
	if (items && !(bytes = render_snap_find(c->snap, ctrl, n, &failed)) && c->limit) {
		strbuf_addstr(c->out, failed ? " = {<unreadable>}" : " = {...}");
		jmissing(c, failed);
	}
	for (uint64_t i = 0; bytes && i < n; i++) {
		if (bytes[i] & 0x80)
			continue;
		at = ctrl - (i + 1) * size;
		if (!copied_element(c, at, size) ||
		    !(s->pairs ? element(c, s->elem, at) : element(c, dw_type_member(s->elem, "__0", &ko)->type, at + ko)))
			break;
	}
	close_list(c);
}

static void bits(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t begin = word(c, s->a, 8), n, cap;
	const uint8_t *w;
	bool failed;

	if (s->has_count) {
		n = word(c, s->b, 8);
		cap = word(c, s->c, 8) * 64;
	} else {
		n = (word(c, s->b, 8) - begin) * 8 + word(c, s->b + 8, 4);
		cap = (word(c, s->c, 8) - begin) * 8;
	}
	strbuf_addf(c->out, "std::vector<bool> of length %" PRIu64 ", capacity %" PRIu64, n, cap);
	jfield(c, "length", n);
	jfield(c, "capacity", cap);
	w = render_snap_find(c->snap, begin, ((n < c->limit ? n : c->limit) + 63) / 64 * 8, &failed);
	for (uint64_t i = 0; i < n; i++) {
		strbuf_addstr(c->out, i ? ", " : " = {");
		if (i >= c->limit || !w) {
			strbuf_setlen(c->out, c->out->len - (i ? 2 : 0));
			strbuf_addstr(c->out, !w && failed ? "<unreadable>" : "...");
			jmissing(c, !w && failed);
			break;
		}
		strbuf_addstr(c->out, (w[i / 8] >> (i % 8)) & 1 ? "true" : "false");
		if (c->json) {
			jelements(c);
			span_add(c->json, SPAN_LITERAL, SPAN_TONE_NONE, NULL, (w[i / 8] >> (i % 8)) & 1 ? "true" : "false");
		}
	}
	if (n)
		strbuf_addch(c->out, '}');
}

/* A list of nodes: list, forward_list, an unordered container's. */
static void nodes(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t node = word(c, s->a, 8), end = s->circular ? c->addr + (uint64_t)s->d : 0;
	const uint8_t *p;

	if (s->shape == DW_SHAPE_COUNTED)
		counted(s->label, word(c, s->e, 8), c->out), jfield(c, "count", word(c, s->e, 8));
	else
		strbuf_addf(c->out, "%s%s", node == end ? "empty " : "", s->label);
	for (size_t guard = 0; node && node != end && guard <= c->limit; guard++) {
		if (c->shown >= c->limit) { /* more than shown: `...` (a bt's `{...}`) */
			element(c, s->elem, 0);
			break;
		}
		if (!(p = node_at(c, node, s->node_size)))
			break;
		if (!element(c, s->elem, node + (uint64_t)s->c))
			break;
		node = render_read_uint(p + s->b, 8);
	}
	close_list(c);
}

/* A tree in order, as the probe walked it (a stack of right children). */
static void tree(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t stack[64], cur = word(c, s->a, 8);
	size_t sp = 0;
	const uint8_t *p;

	counted(s->label, word(c, s->e, 8), c->out);
	jfield(c, "count", word(c, s->e, 8));
	while ((cur || sp) && c->shown <= c->limit) {
		if (c->shown >= c->limit) { /* more than shown: `...` (a bt's `{...}`) */
			element(c, s->elem, 0);
			break;
		}
		if (cur) {
			if (sp == 64 || !(p = node_at(c, cur, s->node_size)))
				break;
			stack[sp++] = cur;
			cur = render_read_uint(p + s->b, 8);
			continue;
		}
		cur = stack[--sp];
		p = render_snap_find(c->snap, cur, s->node_size, &(bool){ false });
		if (!element(c, s->elem, cur + (uint64_t)s->d))
			break;
		cur = p ? render_read_uint(p + s->c, 8) : 0;
	}
	close_list(c);
}

#define BTREE_EDGES 12 /* a node's child pointers (wire.h: WR_WALK_BTREE) */

/* The elements of B-tree node @node of @height and below it, in order;
 * false when the limit or a missing copy ended the list. */
static bool btree_node(struct cview *c, uint64_t node, uint64_t height, int depth)
{
	const struct dw_std *s = c->s;
	uint64_t ks = s->alt[0]->size, vs = s->alt[1]->size, n, ka;
	const uint8_t *p;

	if (c->shown >= c->limit) {
		element_head(c); /* more than shown: `...` */
		return false;
	}
	if (depth > 32 || !(p = node_at(c, node, height ? (size_t)s->g + 8 * BTREE_EDGES : s->node_size)))
		return false;
	n = render_read_uint(p + s->f, 2);
	for (uint64_t i = 0; i <= n && i < BTREE_EDGES; i++) {
		if (height && !btree_node(c, render_read_uint(p + s->g + 8 * i, 8), height - 1, depth + 1))
			return false;
		if (i == n)
			break;
		ka = node + (uint64_t)s->c + i * ks;
		if (!element_head(c))
			return false;
		if (s->pairs && !entry(c, s->alt[0], ka, s->alt[1], node + (uint64_t)s->d + i * vs))
			return false;
		if (!s->pairs && c->json) {
			jelements(c);
			render_value_data_at(c->snap, s->alt[0], ka, &c->lim, c->depth, c->json);
		} else if (!s->pairs) {
			render_value_at(c->snap, s->alt[0], ka, c->vc, c->depth, c->out);
		}
		c->shown++;
	}
	return true;
}

/* Rust's BTreeMap and BTreeSet as rust-gdb's printers show them, in
 * order: `BTreeMap(size=2) = {["conn"] = 100, ["rps"] = 2000}`,
 * `BTreeSet(size=3) = {-1, 2, 3}`. */
static void btree(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t n = word(c, s->e, 8), root = word(c, s->a, 8);

	strbuf_addf(c->out, "%s(size=%" PRIu64 ")", s->label, n);
	jfield(c, "count", n);
	if (n && root)
		btree_node(c, root, word(c, s->b, 8), 0);
	close_list(c);
}

static void deque(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t size = s->elem->size, per = (uint64_t)s->d / size, n, cur, blk_end, node;
	const uint8_t *p;
	bool failed;

	if (s->libcxx) {
		uint64_t first = word(c, s->b, 8);

		n = word(c, s->c, 8);
		node = word(c, s->a, 8) + first / per * 8;
		p = render_snap_find(c->snap, node, 8, &failed);
		cur = p ? render_read_uint(p, 8) : 0;
		blk_end = cur + per * size;
		cur += first % per * size;
	} else {
		uint64_t scur = word(c, s->a, 8), slast = word(c, s->a + 16, 8), snode = word(c, s->a + 24, 8);
		uint64_t fcur = word(c, s->b, 8), ffirst = word(c, s->b + 8, 8), fnode = word(c, s->b + 24, 8);

		n = fnode == snode ? (fcur - scur) / size
				   : ((fnode - snode) / 8 - 1) * per + (fcur - ffirst) / size + (slast - scur) / size;
		cur = scur;
		node = snode;
		blk_end = slast;
	}
	counted(s->label, n, c->out);
	jfield(c, "count", n);
	for (uint64_t i = 0; i < n; i++) {
		if (c->shown >= c->limit) {
			element(c, s->elem, cur); /* `...` */
			break;
		}
		if (cur >= blk_end) {
			node += 8;
			p = render_snap_find(c->snap, node, 8, &failed);
			cur = p ? render_read_uint(p, 8) : 0;
			blk_end = cur + per * size;
		}
		if (!cur || !render_snap_find(c->snap, cur, size, &failed)) {
			if (c->shown < c->limit) {
				strbuf_addstr(c->out, c->shown ? ", ..." : " = {...");
				jmissing(c, false);
				c->shown = c->limit;
			}
			break;
		}
		if (!element(c, s->elem, cur))
			break;
		cur += size;
	}
	close_list(c);
}

static void shared(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t ptr = word(c, s->a, 8), ctrl = word(c, s->b, 8);
	const uint8_t *p;
	bool failed;

	strbuf_addstr(c->out, s->label);
	if (!ctrl) {
		strbuf_addstr(c->out, " (empty)");
	} else if (!(p = render_snap_find(c->snap, ctrl + (uint64_t)s->c, s->libcxx ? 16 : 8, &failed))) {
		strbuf_addstr(c->out, failed ? " (<unreadable>)" : "");
	} else {
		int64_t use = s->libcxx ? (int64_t)render_read_uint(p, 8) + 1 : (int32_t)render_read_uint(p, 4);
		int64_t weak = s->libcxx ? (int64_t)render_read_uint(p + 8, 8) : (int32_t)render_read_uint(p + 4, 4);

		if (use == 0)
			strbuf_addf(c->out, " (expired, weak count %" PRId64 ")", weak);
		else
			strbuf_addf(c->out, " (use count %" PRId64 ", weak count %" PRId64 ")", use,
				    s->libcxx ? weak : weak - 1);
	}
	strbuf_addf(c->out, " = {get() = 0x%" PRIx64 "}", ptr);
}

/* A Rust Weak made by Weak::new(): no block, its pointer usize::MAX. */
static bool rc_dangling(struct cview *c)
{
	return c->s->weak && word(c, c->s->a, 8) == UINT64_MAX;
}

/* Rust's Rc and Arc as rust-gdb shows them: `Rc(strong=2, weak=1) =
 * {value = ..., strong = 2, weak = 1}` (the weak count without the one
 * the strong references hold together).  Returns the block, NULL when it
 * was not copied (shown in place). */
static const uint8_t *rc_block(struct cview *c, uint64_t *strong, uint64_t *weak)
{
	const struct dw_std *s = c->s;
	bool failed;
	const uint8_t *p = render_snap_find(c->snap, word(c, s->a, 8), s->node_size, &failed);

	if (!p) {
		if (!c->json)
			strbuf_addf(c->out, "%s(%s)", s->label, failed ? "<unreadable>" : "...");
		return NULL;
	}
	*strong = render_read_uint(p + s->c, 8);
	*weak = render_read_uint(p + s->d, 8);
	if (*strong && *weak)
		--*weak;
	return p;
}

/* An Rc<str>'s or Arc<str>'s text, as a string: JSON's, or the text's
 * ("rust = rc"); one that runs into a page that cannot be read as a torn
 * std::string, its head then gdb's error at that page (torn_text()),
 * `<unreadable>` when not even a head was read. */
static void rc_str(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t n = word(c, s->f, 8), shown = n < c->limit ? n : c->limit, p = word(c, s->a, 8) + (uint64_t)s->b;
	bool failed = false;
	const uint8_t *bytes = shown ? render_snap_find(c->snap, p, shown, &failed) : (const uint8_t *)"";

	if (!bytes && failed && torn_text(c, p))
		return;
	text_out(c, bytes, shown, n > shown, failed);
}

/* Rc and Arc; a Weak (which rust-gdb shows raw) in their shape, its
 * value only while a strong reference keeps it: `Weak(strong=0,
 * weak=1)` once it is dropped, `Weak(dangling)` without a block. */
static void rc_text(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t strong, weak;

	if (rc_dangling(c)) {
		strbuf_addf(c->out, "%s(dangling)", s->label);
		return;
	}
	if (!rc_block(c, &strong, &weak))
		return;
	strbuf_addf(c->out, "%s(strong=%" PRIu64 ", weak=%" PRIu64 ")", s->label, strong, weak);
	if (!strong)
		return;
	strbuf_addstr(c->out, " = {value = ");
	if (s->str_value)
		rc_str(c);
	else
		render_value_at(c->snap, s->elem, word(c, s->a, 8) + (uint64_t)s->b, c->vc, c->depth, c->out);
	strbuf_addf(c->out, ", strong = %" PRIu64 ", weak = %" PRIu64 "}", strong, weak);
}

/* Whether the library printer of @t has children (a container, a smart
 * pointer, an optional, a variant, a tuple; not a string): an optional
 * or a variant holding such a value says `containing` and shows it
 * whole, as libstdc++'s printers do (SingleObjContainerPrinter):
 * `std::optional<std::vector<int>> containing std::vector of length 2,
 * capacity 2 = {1, 2}`. */
static bool has_children(const struct dw_type *t)
{
	struct dw_std s;

	return t && dw_std_recognize(t, &s) && s.kind != DW_STD_STRING && s.kind != DW_STD_ATOMIC &&
	       s.kind != DW_STD_ITERATOR;
}

/* vector<bool>'s iterator: the bit it points at in the word the probe
 * copied; false when that was not copied (shown in place). */
static bool iterator_bit(struct cview *c, uint64_t ptr, bool *bit)
{
	bool failed;
	const uint8_t *p = render_snap_find(c->snap, ptr, 8, &failed);
	uint64_t at = word(c, c->s->c, 4);

	if (!p) {
		if (!c->json)
			strbuf_addstr(c->out, failed ? "<unreadable>" : "...");
		return false;
	}
	*bit = at < 64 && (render_read_uint(p, 8) >> at & 1);
	return true;
}

/* The element an iterator points at, as a bt shows it (gdb's summary of
 * the printer's text: a scalar or a string whole, a container its head,
 * a value of a printer with children {...} (std::pair), another struct,
 * union or array `...`). */
static void iterator_elided(struct cview *c, uint64_t addr)
{
	const struct dw_type *t = c->s->elem;
	struct dw_std es;
	const uint8_t *data;
	bool failed;

	if (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION &&
	    !(t->kind == DW_TYPE_ARRAY && !(t->target && t->target->is_char))) {
		render_value_at(c->snap, t, addr, c->vc, c->depth, c->out);
		return;
	}
	if (t->kind != DW_TYPE_STRUCT || !dw_std_recognize(t, &es)) {
		/* libc++'s pair is libstdc++'s, which has a printer */
		strbuf_addstr(c->out, dw_std_is_pair(t) || (t->tag_name && !strncmp(t->tag_name, "std::__1::pair<", 15)) ? "{...}" : "...");
		return;
	}
	if (!(data = render_snap_find(c->snap, addr, t->size, &failed)))
		strbuf_addstr(c->out, failed ? "<unreadable>" : "...");
	else
		render_container(c->snap, &es, data, t->size, addr, c->vc, c->depth + 1, true, c->out);
}

/* An iterator as libstdc++'s printers show it: the element it points at
 * (which an end() iterator's printer reads too, past the last element or
 * in the container's head, as gdb's does), or, pointing nowhere,
 * `non-dereferenceable iterator for std::vector`. */
static void iterator_text(struct cview *c, bool elide)
{
	const struct dw_std *s = c->s;
	uint64_t ptr = word(c, s->a, 8);
	bool bit;

	if (!ptr)
		strbuf_addf(c->out, "non-dereferenceable iterator for %s", s->container);
	else if (!s->elem)
		strbuf_addstr(c->out, iterator_bit(c, ptr, &bit) ? (bit ? "true" : "false") : "");
	else if (elide)
		iterator_elided(c, ptr + (uint64_t)s->b);
	else
		render_value_at(c->snap, s->elem, ptr + (uint64_t)s->b, c->vc, c->depth, c->out);
}

static void wrapper(struct cview *c)
{
	const struct dw_std *s = c->s;

	switch (s->kind) {
	case DW_STD_UNIQUE_PTR:
		strbuf_addf(c->out, "%s = {get() = 0x%" PRIx64 "}", s->label, word(c, s->a, 8));
		break;
	case DW_STD_OPTIONAL:
		strbuf_addstr(c->out, s->label);
		if (!word(c, s->b, 1)) {
			strbuf_addstr(c->out, " [no contained value]");
			break;
		}
		strbuf_addstr(c->out, has_children(s->elem) ? " containing " : " = {[contained value] = ");
		render_value_at(c->snap, s->elem, c->addr + (uint64_t)s->a, c->vc, c->depth, c->out);
		if (!has_children(s->elem))
			strbuf_addch(c->out, '}');
		break;
	case DW_STD_VARIANT: {
		uint64_t i = word(c, s->b, s->index_size);

		strbuf_addstr(c->out, s->label);
		if (i >= s->n_alts) {
			strbuf_addstr(c->out, " [no contained value]");
			break;
		}
		strbuf_addf(c->out, " [index %" PRIu64 "]%s", i, has_children(s->alt[i]) ? " containing " : " = {");
		render_value_at(c->snap, s->alt[i], c->addr + (uint64_t)s->a, c->vc, c->depth, c->out);
		if (!has_children(s->alt[i]))
			strbuf_addch(c->out, '}');
		break;
	}
	case DW_STD_TUPLE:
		strbuf_addstr(c->out, s->n_alts ? "std::tuple containing = {" : "empty std::tuple");
		for (unsigned i = 0; i < s->n_alts; i++) {
			strbuf_addf(c->out, "%s[%u] = ", i ? ", " : "", i + 1);
			render_value_at(c->snap, s->alt[i], c->addr + s->alt_off[i], c->vc, c->depth, c->out);
		}
		if (s->n_alts)
			strbuf_addch(c->out, '}');
		break;
	case DW_STD_ATOMIC:
		strbuf_addf(c->out, "%s = { ", s->label);
		render_value_at(c->snap, s->elem, c->addr + (uint64_t)s->a, c->vc, c->depth, c->out);
		strbuf_addstr(c->out, " }");
		break;
	case DW_STD_SHARED_PTR:
		shared(c);
		break;
	case DW_STD_RC:
		rc_text(c);
		break;
	case DW_STD_CELL:
		/* rust-gdb's: `Cell = {value = -4}`, `RefCell(borrow=0) = {value = ..., borrow = 0}` */
		if (s->b >= 0)
			strbuf_addf(c->out, "%s(borrow=%" PRId64 ") = {value = ", s->label, (int64_t)word(c, s->b, 8));
		else
			strbuf_addf(c->out, "%s = {value = ", s->label);
		render_value_at(c->snap, s->elem, c->addr + (uint64_t)s->a, c->vc, c->depth, c->out);
		if (s->b >= 0)
			strbuf_addf(c->out, ", borrow = %" PRId64, (int64_t)word(c, s->b, 8));
		strbuf_addch(c->out, '}');
		break;
	default:
		break;
	}
}

/* A wrapper's text; elided (print max-depth), its children are {...}
 * as gdb writes them: `std::unique_ptr<Item> = {...}` (an atomic's
 * printer has none). */
static void wrapper_text(struct cview *c)
{
	size_t start = c->out->len;
	const char *eq;

	if (c->s->kind == DW_STD_ITERATOR) {
		iterator_text(c, !c->limit);
		return;
	}
	wrapper(c);
	if (c->limit || c->s->kind == DW_STD_ATOMIC)
		return;
	eq = strstr(c->out->buf + start + (c->s->label ? strlen(c->s->label) : 0), " = {");
	if (eq) {
		strbuf_setlen(c->out, (size_t)(eq - c->out->buf));
		strbuf_addstr(c->out, " = {...}");
	}
}

/* A pointer as JSON has it: "0x...", null for NULL. */
static void jpointer(struct cview *c, const char *key, uint64_t p)
{
	span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, key);
	if (p)
		span_dataf(c->json, SPAN_STRING, "0x%" PRIx64, p);
	else
		span_null(c->json, SPAN_LITERAL);
}

static void jvalue(struct cview *c, const char *key, const struct dw_type *t, uint64_t addr)
{
	span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, key);
	render_value_data_at(c->snap, t, addr, &c->lim, c->depth, c->json);
}

/* shared_ptr, weak_ptr: "get", and "use_count", "weak_count" when the
 * control block was copied (gdb's counts: the weak count without the
 * one the users hold together). */
static void shared_data(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t ctrl = word(c, s->b, 8);
	const uint8_t *p = ctrl ? render_snap_find(c->snap, ctrl + (uint64_t)s->c, s->libcxx ? 16 : 8,
						   &(bool){ false })
				: NULL;

	jpointer(c, "get", word(c, s->a, 8));
	if (!p)
		return;
	if (s->libcxx) {
		jfield(c, "use_count", render_read_uint(p, 8) + 1);
		jfield(c, "weak_count", render_read_uint(p + 8, 8));
	} else {
		int64_t use = (int32_t)render_read_uint(p, 4), weak = (int32_t)render_read_uint(p + 4, 4);

		jfield(c, "use_count", (uint64_t)use);
		jfield(c, "weak_count", (uint64_t)(use ? weak - 1 : weak));
	}
}

/* The wrappers in JSON: a unique_ptr's "get", an optional's "has_value"
 * and "value", a variant's "index" and "value", a tuple's "elements", an
 * atomic's "value". */
static void wrapper_data(struct cview *c)
{
	const struct dw_std *s = c->s;
	uint64_t i;

	switch (s->kind) {
	case DW_STD_UNIQUE_PTR:
		jpointer(c, "get", word(c, s->a, 8));
		break;
	case DW_STD_SHARED_PTR:
		shared_data(c);
		break;
	case DW_STD_RC: {
		uint64_t strong, weak;

		jpointer(c, "get", rc_dangling(c) ? 0 : word(c, s->a, 8));
		if (rc_dangling(c) || !rc_block(c, &strong, &weak))
			break;
		jfield(c, "strong_count", strong);
		jfield(c, "weak_count", weak);
		if (s->str_value) {
			span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "value");
			rc_str(c);
		} else if (strong) {
			jvalue(c, "value", s->elem, word(c, s->a, 8) + (uint64_t)s->b);
		}
		break;
	}
	case DW_STD_CELL:
		if (s->b >= 0) {
			span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "borrow");
			span_dataf(c->json, SPAN_NUMBER, "%" PRId64, (int64_t)word(c, s->b, 8));
		}
		jvalue(c, "value", s->elem, c->addr + (uint64_t)s->a);
		break;
	case DW_STD_OPTIONAL:
		span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "has_value");
		span_add(c->json, SPAN_LITERAL, SPAN_TONE_NONE, NULL, word(c, s->b, 1) ? "true" : "false");
		if (word(c, s->b, 1))
			jvalue(c, "value", s->elem, c->addr + (uint64_t)s->a);
		break;
	case DW_STD_VARIANT:
		i = word(c, s->b, s->index_size);
		if (i >= s->n_alts)
			break;
		jfield(c, "index", i);
		jvalue(c, "value", s->alt[i], c->addr + (uint64_t)s->a);
		break;
	case DW_STD_TUPLE:
		jelements(c);
		for (unsigned k = 0; k < s->n_alts; k++)
			render_value_data_at(c->snap, s->alt[k], c->addr + s->alt_off[k], &c->lim, c->depth, c->json);
		break;
	case DW_STD_ATOMIC:
		jvalue(c, "value", s->elem, c->addr + (uint64_t)s->a);
		break;
	case DW_STD_ITERATOR: {
		uint64_t ptr = word(c, s->a, 8);
		bool bit;

		jpointer(c, "get", ptr);
		if (ptr && !s->elem && iterator_bit(c, ptr, &bit)) {
			span_add(c->json, SPAN_KEY, SPAN_TONE_NONE, NULL, "value");
			span_add(c->json, SPAN_LITERAL, SPAN_TONE_NONE, NULL, bit ? "true" : "false");
		} else if (ptr && s->elem) {
			jvalue(c, "value", s->elem, ptr + (uint64_t)s->b);
		}
		break;
	}
	default:
		break;
	}
}

/* The containers' elements: sequences, lists, trees (text or JSON). */
static bool elements_of(struct cview *c)
{
	switch (c->s->kind) {
	case DW_STD_STRING: string_text(c); return true;
	case DW_STD_VECTOR: sequence(c); return true;
	case DW_STD_RING: ring(c); return true;
	case DW_STD_HASH: hash(c); return true;
	case DW_STD_BTREE: btree(c); return true;
	case DW_STD_BITS: bits(c); return true;
	case DW_STD_DEQUE: deque(c); return true;
	case DW_STD_LIST: nodes(c); return true;
	case DW_STD_TREE: tree(c); return true;
	default: return false;
	}
}

void render_container_data(const struct render_snap *snap, const struct dw_std *s, const uint8_t *data,
			   size_t len, uint64_t addr, const struct render_limits *lim, int depth,
			   struct span_list *out)
{
	struct strbuf scratch = STRBUF_INIT;
	struct cview c = { .snap = snap, .depth = depth, .data = data, .len = len, .addr = addr, .s = s,
			   .out = &scratch, .limit = lim->elements, .lim = *lim, .json = out };

	if (s->pairs)
		c.limit = (c.limit + 1) / 2;
	if (s->kind == DW_STD_STRING) {
		string_text(&c);
		strbuf_release(&scratch);
		return;
	}
	span_open(out, SPAN_OBJECT);
	span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "kind");
	span_add(out, SPAN_STRING, SPAN_TONE_NONE, NULL, s->label);
	if (elements_of(&c)) {
		jelements(&c); /* [] when empty */
		span_close(out);
		span_add(out, SPAN_KEY, SPAN_TONE_NONE, NULL, "truncated");
		span_add(out, SPAN_LITERAL, SPAN_TONE_NONE, NULL, c.cut ? "true" : "false");
	} else {
		wrapper_data(&c);
		if (c.in_elements)
			span_close(out);
	}
	span_close(out);
	strbuf_release(&scratch);
}

void render_container(const struct render_snap *snap, const struct dw_std *s, const uint8_t *data,
		      size_t len, uint64_t addr, const struct render_value_ctx *vc, int depth, bool elide,
		      struct strbuf *out)
{
	struct render_limits lim = render_limits_of(vc);
	struct cview c = { .snap = snap, .vc = vc, .depth = depth, .data = data, .len = len, .addr = addr,
			   .s = s, .out = out, .limit = lim.elements, .lim = lim };

	if (elide && s->kind != DW_STD_STRING)
		c.limit = 0; /* `= {...}` when it has elements */
	else if (s->pairs)
		c.limit = (c.limit + 1) / 2;
	if (!elements_of(&c))
		wrapper_text(&c);
}
