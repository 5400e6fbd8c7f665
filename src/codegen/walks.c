/* walks.c - walk programs: what the probe copies of a printed value
 * beyond its own bytes (wire.h: walks).  A value's type is compiled into
 * a tree of wr_walk_op, down through the standard library's containers
 * (dwarf/stdlib.h) and the structs, arrays, optionals and variants that
 * hold them; the probe writes the program with wr_walk_op() and runs it
 * with wr_walk() (bpf-templates/walk.bpf.h).  Element counts are capped
 * as gdb's `print elements` caps them (a map's key and value count as
 * two), nesting at WR_WALK_DEPTH containers.
 *
 * A program holds WR_WALK_MAX_OPS ops.  A type that needs more (a
 * recursive one above all: a Rust enum whose variants hold Vecs and maps
 * of itself, a C++ node holding a vector of nodes) is compiled as deep as
 * fits whole (compile_root()): its outer parts are all walked and what
 * lies deeper shows as not copied, as gdb's `print max-depth` elides the
 * deepest parts first.  Compiled depth first to the end instead, the
 * first member's recursion took every op and the members after it showed
 * nothing (rmonkey's `Object::String(...)` where gdb shows the string).
 */
#include "codegen/lower.h"
#include "protocol/wire.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* How deep in a value's type (members, variants, elements) a walk goes
 * at most. */
#define WALK_TYPE_DEPTH 16

struct walk_prog {
	struct wr_walk_op ops[WR_WALK_MAX_OPS];
	unsigned n;
	unsigned print_elements; /* cg->print_elements */
	int max_depth;		 /* types deeper than this are not walked */
	bool full;		 /* an op was refused: the program is cut */
};

static unsigned compile(struct walk_prog *p, const struct dw_type *t, bool in_elem, int depth);

/* Ops are named here by handles, their index + 1 (0: none); the root,
 * the first op, has index 0, which no op names as a child. */

/* A new op of @code; 0 when the program is full (that part is not
 * walked, and shows as missing). */
static unsigned add(struct walk_prog *p, unsigned code)
{
	if (p->n >= WR_WALK_MAX_OPS) {
		p->full = true;
		return 0;
	}
	memset(&p->ops[p->n], 0, sizeof(p->ops[0]));
	p->ops[p->n].code = (uint8_t)code;
	return ++p->n;
}

/* Chain child @c (at @at, chosen by @match) under op @parent. */
static void link(struct walk_prog *p, unsigned parent, unsigned c, int64_t at, uint32_t match)
{
	struct wr_walk_op *op = &p->ops[parent - 1];

	if (!c)
		return;
	p->ops[c - 1].at = (int32_t)at;
	p->ops[c - 1].match = match;
	if (!op->child) {
		op->child = (uint16_t)(c - 1);
		return;
	}
	for (unsigned k = op->child; k; k = p->ops[k].next)
		if (!p->ops[k].next) {
			p->ops[k].next = (uint16_t)(c - 1);
			break;
		}
}

static uint32_t limit(const struct walk_prog *p, bool pairs)
{
	unsigned n = p->print_elements;

	return pairs ? (n + 1) / 2 : n;
}

static void offsets(struct wr_walk_op *op, int64_t a, int64_t b, int64_t c, int64_t d)
{
	op->a = (int32_t)a;
	op->b = (int32_t)b;
	op->c = (int32_t)c;
	op->d = (int32_t)d;
}

/* A BTreeMap's or BTreeSet's B-tree: BTREE, its key's walk the first
 * child, its value's the second (NONE where it has none). */
static unsigned compile_btree(struct walk_prog *p, const struct dw_std *s, int depth)
{
	unsigned i, k, v;
	struct wr_walk_op *op;

	/* the op packs them in 16 bits each */
	if ((s->c | s->d | s->f | s->g) > 0xffff || s->node_size > 0xffff || s->alt[0]->size > 0xffff ||
	    s->alt[1]->size > 0xffff || !(i = add(p, WR_WALK_BTREE)))
		return 0;
	op = &p->ops[i - 1];
	offsets(op, s->a, s->b, s->c | s->d << 16, s->f | s->g << 16);
	op->vsize = (uint16_t)s->node_size;
	op->size = (uint32_t)(s->alt[0]->size | s->alt[1]->size << 16);
	op->limit = limit(p, s->pairs);
	k = compile(p, s->alt[0], true, depth + 1);
	v = compile(p, s->alt[1], true, depth + 1);
	if (v && !k)
		k = add(p, WR_WALK_NONE);
	link(p, i, k, 0, 0);
	link(p, i, v, 0, 0);
	return i;
}

/* Rc<str>, Arc<str>: the block's counts (DEREF) and the text after
 * them (STRING, its pointer plus the value's offset), under one FIELDS. */
static unsigned compile_rc_str(struct walk_prog *p, const struct dw_std *s)
{
	unsigned i = add(p, WR_WALK_FIELDS), k;

	if (i && (k = add(p, WR_WALK_DEREF))) {
		offsets(&p->ops[k - 1], s->a, 0, 0, 0);
		p->ops[k - 1].size = (uint32_t)s->node_size;
		link(p, i, k, 0, 0);
	}
	if (i && (k = add(p, WR_WALK_STRING))) {
		offsets(&p->ops[k - 1], s->a, s->f, s->b, 0);
		p->ops[k - 1].size = 0;
		p->ops[k - 1].limit = p->print_elements;
		link(p, i, k, 0, 0);
	}
	return i;
}

/* One of the standard library's: its op, or 0 when nothing of it lies
 * outside the value (a unique_ptr shows its pointer only). */
static unsigned compile_std(struct walk_prog *p, const struct dw_type *t, const struct dw_std *s, int depth)
{
	unsigned i = 0, flags = s->libcxx ? WR_WALK_F_LIBCXX : 0;

	switch (s->kind) {
	case DW_STD_STRING:
		if (!(i = add(p, WR_WALK_STRING)))
			return 0;
		/* d: the character's size as a shift (a length counts characters) */
		offsets(&p->ops[i - 1], s->a, s->b, 0, s->char_size == 4 ? 2 : s->char_size == 2 ? 1 : 0);
		p->ops[i - 1].flags = (uint8_t)flags;
		p->ops[i - 1].size = (uint32_t)t->size;
		p->ops[i - 1].limit = p->print_elements;
		break;
	case DW_STD_VECTOR:
	case DW_STD_BITS:
		if (!(i = add(p, WR_WALK_ARRAY)))
			return 0;
		offsets(&p->ops[i - 1], s->a, s->b, 0, 0);
		p->ops[i - 1].flags = (s->has_count ? WR_WALK_F_COUNT : 0) | (s->kind == DW_STD_BITS ? WR_WALK_F_BITS : 0);
		p->ops[i - 1].size = s->kind == DW_STD_BITS ? 1 : (uint32_t)s->elem->size;
		p->ops[i - 1].limit = limit(p, false);
		if (s->kind == DW_STD_VECTOR)
			link(p, i, compile(p, s->elem, true, depth + 1), 0, 0);
		break;
	case DW_STD_DEQUE:
		if (!(i = add(p, WR_WALK_DEQUE)))
			return 0;
		offsets(&p->ops[i - 1], s->a, s->b, s->c, s->d);
		p->ops[i - 1].flags = (uint8_t)flags;
		p->ops[i - 1].size = (uint32_t)s->elem->size;
		p->ops[i - 1].limit = limit(p, false);
		link(p, i, compile(p, s->elem, true, depth + 1), 0, 0);
		break;
	case DW_STD_LIST:
	case DW_STD_TREE:
		if (!(i = add(p, s->kind == DW_STD_LIST ? WR_WALK_LIST : WR_WALK_TREE)))
			return 0;
		offsets(&p->ops[i - 1], s->a, s->b, s->c, s->d);
		p->ops[i - 1].flags = s->circular ? WR_WALK_F_CIRCULAR : 0;
		p->ops[i - 1].size = (uint32_t)s->node_size;
		p->ops[i - 1].limit = limit(p, s->pairs);
		link(p, i, compile(p, s->elem, true, depth + 1), 0, 0);
		break;
	case DW_STD_SHARED_PTR:
		if ((i = add(p, WR_WALK_DEREF)))
			offsets(&p->ops[i - 1], s->b, s->c, 0, 0), p->ops[i - 1].size = s->libcxx ? 16 : 8;
		break;
	case DW_STD_RC:
		if (s->str_value)
			return compile_rc_str(p, s);
		if ((i = add(p, WR_WALK_DEREF))) {
			offsets(&p->ops[i - 1], s->a, 0, 0, 0);
			p->ops[i - 1].size = (uint32_t)(s->node_size < WR_WALK_COPY_MAX ? s->node_size : WR_WALK_COPY_MAX);
			link(p, i, compile(p, s->elem, true, depth + 1), s->b, 0);
		}
		break;
	case DW_STD_ITERATOR:
		/* the element it points at (vector<bool>'s: the word of its
		 * bit), then what the element needs */
		if ((i = add(p, WR_WALK_DEREF))) {
			uint64_t n = s->elem ? s->elem->size : 8;

			offsets(&p->ops[i - 1], s->a, s->b, 0, 0);
			p->ops[i - 1].size = (uint32_t)(n < WR_WALK_COPY_MAX ? n : WR_WALK_COPY_MAX);
			if (s->elem)
				link(p, i, compile(p, s->elem, true, depth + 1), s->b, 0);
		}
		break;
	case DW_STD_RING:
		/* the whole buffer, up to the limit: the renderer picks the
		 * elements from tail to head */
		if (!(i = add(p, WR_WALK_ARRAY)))
			return 0;
		offsets(&p->ops[i - 1], s->a, s->d, 0, 0);
		p->ops[i - 1].flags = WR_WALK_F_COUNT;
		p->ops[i - 1].size = (uint32_t)s->elem->size;
		p->ops[i - 1].limit = limit(p, false);
		link(p, i, compile(p, s->elem, true, depth + 1), 0, 0);
		break;
	case DW_STD_HASH:
		if (!(i = add(p, WR_WALK_HASH)))
			return 0;
		offsets(&p->ops[i - 1], s->a, s->b, 0, 0);
		p->ops[i - 1].size = (uint32_t)s->elem->size;
		p->ops[i - 1].limit = limit(p, s->pairs);
		link(p, i, compile(p, s->elem, true, depth + 1), 0, 0);
		break;
	case DW_STD_BTREE:
		return compile_btree(p, s, depth);
	case DW_STD_CELL:
		if ((i = add(p, WR_WALK_FIELDS)))
			link(p, i, compile(p, s->elem, true, depth + 1), s->a, 0);
		break;
	case DW_STD_OPTIONAL:
		if ((i = add(p, WR_WALK_SWITCH))) {
			offsets(&p->ops[i - 1], s->b, 0, 0, 0);
			p->ops[i - 1].vsize = 1;
			link(p, i, compile(p, s->elem, true, depth + 1), s->a, 1);
		}
		break;
	case DW_STD_VARIANT:
		if ((i = add(p, WR_WALK_SWITCH))) {
			offsets(&p->ops[i - 1], s->b, 0, 0, 0);
			p->ops[i - 1].vsize = (uint16_t)s->index_size;
			for (unsigned k = 0; k < s->n_alts; k++)
				link(p, i, compile(p, s->alt[k], true, depth + 1), s->a, k);
		}
		break;
	case DW_STD_TUPLE:
		if ((i = add(p, WR_WALK_FIELDS)))
			for (unsigned k = 0; k < s->n_alts; k++)
				link(p, i, compile(p, s->alt[k], true, depth + 1), (int64_t)s->alt_off[k], 0);
		break;
	default:
		return 0;
	}
	return i;
}

/* The least discriminant of @t's variants but the default one: the
 * SWITCH subtracts it, so that values of a niche far above 2^32 (rustc
 * 1.80+ keeps a String's variants in its capacity's high values) still
 * match in 32 bits. */
static uint64_t enum_bias(const struct dw_type *t)
{
	uint64_t least = UINT64_MAX;

	for (size_t k = 0; k < t->n_variants; k++)
		if (!t->variants[k].is_default && t->variants[k].value < least)
			least = t->variants[k].value;
	return least == UINT64_MAX ? 0 : least;
}

/* A Rust enum with data: a SWITCH on its discriminant (less the least
 * one, enum_bias()) over the variants it names by value, and the default
 * variant (the one whose data holds a niche) walked whatever the
 * discriminant, under one FIELDS: a walk of bytes that are not that
 * variant's only copies what the renderer then does not show. */
static unsigned compile_enum(struct walk_prog *p, const struct dw_type *t, int depth)
{
	unsigned i = add(p, WR_WALK_FIELDS), sw = 0, v_op;
	uint64_t bias = enum_bias(t);

	if (!i)
		return 0;
	for (size_t k = 0; k < t->n_variants; k++) {
		const struct dw_variant *v = &t->variants[k];

		if (!dw_std_walkable(v->type, 0) ||
		    (!v->is_default && (t->discr_size > 8 || v->value - bias > UINT32_MAX)))
			continue;
		if (!(v_op = compile(p, v->type, false, depth + 1)))
			continue;
		if (v->is_default) {
			link(p, i, v_op, (int64_t)v->offset, 0);
			continue;
		}
		if (!sw && (sw = add(p, WR_WALK_SWITCH))) {
			offsets(&p->ops[sw - 1], (int64_t)t->discr_offset, (int32_t)(uint32_t)bias,
				(int32_t)(uint32_t)(bias >> 32), 0);
			p->ops[sw - 1].vsize = (uint16_t)t->discr_size;
			link(p, i, sw, 0, 0);
		}
		if (sw)
			link(p, sw, v_op, (int64_t)v->offset, (uint32_t)(v->value - bias));
	}
	return i;
}

/* A struct, union or array holding walkable values: FIELDS (or an
 * inline ARRAY) over them. */
static unsigned compile_aggregate(struct walk_prog *p, const struct dw_type *t, bool in_elem, int depth)
{
	unsigned i;

	if (t->kind == DW_TYPE_ARRAY) {
		if (!t->count || !t->target->size || !(i = add(p, WR_WALK_ARRAY)))
			return 0;
		p->ops[i - 1].flags = WR_WALK_F_INLINE;
		p->ops[i - 1].size = (uint32_t)t->target->size;
		p->ops[i - 1].d = (int32_t)(t->count < p->print_elements ? t->count : p->print_elements);
		p->ops[i - 1].limit = limit(p, false);
		link(p, i, compile(p, t->target, in_elem, depth + 1), 0, 0);
		return i;
	}
	if (t->kind != DW_TYPE_STRUCT || !(i = add(p, WR_WALK_FIELDS)))
		return 0;
	for (size_t k = 0; k < t->n_members; k++) {
		const struct dw_member *mb = &t->members[k];

		if (!mb->bit_size && !mb->is_virtual) /* a virtual base's place varies */
			link(p, i, compile(p, mb->type, in_elem, depth + 1), (int64_t)mb->offset, 0);
	}
	return i;
}

static unsigned compile(struct walk_prog *p, const struct dw_type *t, bool in_elem, int depth)
{
	struct dw_std s;
	unsigned i;

	if (!t || depth > p->max_depth)
		return 0;
	if (in_elem && ctype_is_text_pointer(t)) {
		/* a char * inside a container: its string (the value's own
		 * come attached, print_args.c) */
		if ((i = add(p, WR_WALK_CSTR)))
			p->ops[i - 1].limit = p->print_elements;
		return i;
	}
	if (!dw_std_walkable(t, 0) && !(in_elem && (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_ARRAY)))
		return 0;
	if (dw_std_recognize(t, &s))
		return compile_std(p, t, &s, depth);
	if (t->n_variants)
		return compile_enum(p, t, depth);
	return compile_aggregate(p, t, in_elem, depth);
}

/* @t's walk after the ops @p holds: compiled as deep as fits in the
 * program whole, so that a type needing more ops than it has loses its
 * deepest parts, not the members that come after a deep one; when even
 * its first level does not fit, as deep as it goes, cut where it fills.
 * Returns the root's handle (0: nothing to walk). */
static unsigned compile_root(struct walk_prog *p, const struct dw_type *t)
{
	unsigned first = p->n, root;

	for (int d = WALK_TYPE_DEPTH; d >= 0; d--) {
		p->n = first;
		p->full = false;
		p->max_depth = d;
		root = compile(p, t, false, 0);
		if (!p->full)
			return root;
	}
	p->n = first;
	p->full = false;
	p->max_depth = WALK_TYPE_DEPTH;
	return compile(p, t, false, 0);
}

/* A walk program's FIELDS or ARRAY ops that ended up with no child do
 * nothing: made NONE they cost one step. */
static void prune(struct walk_prog *p)
{
	for (unsigned k = 0; k < p->n; k++) {
		struct wr_walk_op *op = &p->ops[k];

		if ((op->code == WR_WALK_FIELDS || (op->code == WR_WALK_ARRAY && (op->flags & WR_WALK_F_INLINE))) &&
		    !op->child)
			op->code = WR_WALK_NONE;
	}
}

bool walks_needed(const struct dw_type *t)
{
	return dw_std_walkable(t, 0);
}

int walks_append(const struct dw_type *t, bool raw, unsigned print_elements, struct wr_walk_op *ops,
		 unsigned *n)
{
	struct walk_prog *p = xmalloc(sizeof(*p));
	unsigned first = *n, root;
	int at = -1;

	memcpy(p->ops, ops, first * sizeof(*ops));
	p->n = first;
	p->print_elements = print_elements;
	root = raw ? add(p, WR_WALK_NONE) : compile_root(p, t);
	if (root) {
		prune(p);
		memcpy(ops + first, p->ops + first, (p->n - first) * sizeof(*ops));
		*n = p->n;
		at = (int)root - 1;
	}
	free(p);
	return at;
}

/* Write @t's walk program into the probe (@raw: the root alone); false
 * when nothing of @t needs walking. */
static bool write_program(struct cg *cg, const struct dw_type *t, bool raw)
{
	struct walk_prog p = { .n = 0, .print_elements = cg->print_elements };
	LLVMValueRef args[6];
	uint64_t w[WR_WALK_OP_WORDS];

	if (raw)
		add(&p, WR_WALK_NONE);
	else if (!compile_root(&p, t))
		return false;
	prune(&p);
	for (unsigned k = 0; k < p.n; k++) {
		memcpy(w, &p.ops[k], sizeof(w));
		args[0] = cg_i32(cg, k);
		for (unsigned j = 0; j < WR_WALK_OP_WORDS; j++)
			args[1 + j] = cg_i64(cg, w[j]);
		cg_call(cg, WR_FN_WALK_OP, args, 6);
	}
	return true;
}

void walks_emit(struct cg *cg, LLVMValueRef addr, const struct dw_type *t, bool raw)
{
	LLVMValueRef args[3];

	if (!write_program(cg, t, raw))
		return;
	args[0] = cg->buf;
	args[1] = addr;
	args[2] = cg_i32(cg, t->size < WR_WALK_COPY_MAX ? t->size : WR_WALK_COPY_MAX);
	cg_call(cg, WR_FN_WALK, args, 3);
}

void walks_emit_sized(struct cg *cg, LLVMValueRef addr, LLVMValueRef size)
{
	LLVMValueRef args[3];

	if (!write_program(cg, NULL, true))
		return;
	args[0] = cg->buf;
	args[1] = addr;
	args[2] = size;
	cg_call(cg, WR_FN_WALK, args, 3);
}

void walks_emit_pieces(struct cg *cg, LLVMValueRef off, const struct dw_type *t)
{
	LLVMValueRef args[3];

	if (t->size > WR_PIECES_MAX || !write_program(cg, t, false))
		return;
	args[0] = cg->buf;
	args[1] = off;
	args[2] = cg_i32(cg, t->size);
	cg_call(cg, WR_FN_WALK_PIECES, args, 3);
}
