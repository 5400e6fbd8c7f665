/* stdlib.h - the C++ standard library's strings, containers and wrappers
 * recognised by their DWARF types (name and members), for libstdc++ (g++
 * 12, clang-19) and libc++ (clang-19 -stdlib=libc++): where their
 * elements are, so the probe can copy them (codegen) and the renderer can
 * show them as gdb's pretty-printers do.
 *
 * Layer rule: dwarf/ depends on util/ only.  Everything here works on
 * struct dw_type (types.h); nothing reads libdw.
 */
#ifndef WRAITH_DWARF_STDLIB_H
#define WRAITH_DWARF_STDLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/vars.h"

enum dw_std_kind {
	DW_STD_NONE,
	DW_STD_STRING,       /* std::string, std::string_view */
	DW_STD_VECTOR,       /* also span: contiguous elements */
	DW_STD_BITS,         /* std::vector<bool> */
	DW_STD_DEQUE,
	DW_STD_LIST,         /* list, forward_list, the unordered containers' node list */
	DW_STD_TREE,         /* map, multimap, set, multiset */
	DW_STD_UNIQUE_PTR,
	DW_STD_SHARED_PTR,   /* shared_ptr, weak_ptr */
	DW_STD_OPTIONAL,
	DW_STD_VARIANT,
	DW_STD_TUPLE,
	DW_STD_ATOMIC,
	DW_STD_RC,           /* Rust's Rc and Arc: a pointer to the counts and the value */
	DW_STD_CELL,         /* Rust's Cell and RefCell: the value inside */
	DW_STD_RING,         /* Rust's VecDeque: a ring buffer */
	DW_STD_HASH,         /* Rust's HashMap, HashSet: hashbrown's table */
	DW_STD_BTREE,        /* Rust's BTreeMap, BTreeSet: a B-tree of nodes */
	DW_STD_ITERATOR,     /* an iterator of vector, deque, list, forward_list, map, set,
			      * vector<bool>: the element it points at */
};

/* Which gdb printer's text: DW_STD_LIST and DW_STD_VECTOR cover several. */
enum dw_std_shape {
	DW_SHAPE_PLAIN,      /* string, unique_ptr, ... one shape each */
	DW_SHAPE_VECTOR,     /* "std::vector of length 3, capacity 3" */
	DW_SHAPE_SPAN,       /* "std::span of length 3" */
	DW_SHAPE_INDEXED,    /* "std::__cxx11::list = {[0] = 5, ...}" */
	DW_SHAPE_COUNTED,    /* "std::map with 2 elements = {...}" */
	DW_SHAPE_RUST,       /* rust-gdb's: "Vec(size=3) = {...}", "&[i64](size=3) = {...}" */
};

#define DW_STD_MAX_ALTS 16 /* variant alternatives, tuple elements */

struct dw_std {
	enum dw_std_kind kind;
	enum dw_std_shape shape;
	bool libcxx;
	/* The printer's name of it: "std::map", "std::__cxx11::list",
	 * "std::unique_ptr<Item>" (owned by the module's type cache, or
	 * static). */
	const char *label;
	bool pairs;          /* elements are pairs, shown as [first] = second */
	bool unordered;      /* a hash table's node list */
	bool circular;       /* LIST: ends at the value's own head (at d) */
	bool has_count;      /* VECTOR/BITS: b holds a count, not an end pointer */
	bool cap_count;      /* VECTOR: c holds the capacity, not an end pointer (Rust) */
	bool fixed;          /* VECTOR: a span of static extent: d elements */
	bool bracketed;      /* VECTOR: gdb's own Rust slice, `Box<[u8], ...> [1, 2]` */
	bool ring_len;       /* RING: c holds the count, d any capacity (rustc 1.67+) */
	bool str_value;      /* RC: Rc<str>, Arc<str>: a text of the length at f */
	/* ITERATOR: what libstdc++'s printer says of one that points
	 * nowhere, "non-dereferenceable iterator for %s" ("std::vector",
	 * "associative container", ...) */
	const char *container;
	/* STRING: the bytes of a character (1; 2 or 4 for std::u16string,
	 * std::wstring, std::u32string and their views) and the prefix gdb
	 * writes before its text ("u", "L", "U"; NULL for char and char8_t);
	 * a length counts characters. */
	unsigned char_size;
	const char *char_prefix;
	/* STRING: shown as gdb's C printer shows a counted string, one NUL
	 * character at its end not written ("" for std::string(1, '\0'));
	 * false for Rust's, which rust-gdb writes whole ("ab\000"). */
	bool c_text;
	/* The element: of a sequence, the node value of a list or tree, the
	 * pointee of a smart pointer, an optional's or atomic's value. */
	const struct dw_type *elem;
	/* Offsets, by kind (all in bytes):
	 *   STRING      a: data pointer, b: length (libc++: long form's)
	 *   VECTOR      a: begin, b: end (or count), c: end of storage (-1: none)
	 *   BITS        a: begin word pointer, b: end word pointer (bit offset at
	 *               b + 8) or count, c: end of storage or capacity words
	 *   DEQUE       libstdc++ a: start iterator, b: finish iterator;
	 *               libc++ a: block map begin, b: first index, c: count;
	 *               d: bytes of a block
	 *   LIST        a: first node pointer, b: next in node, c: element in
	 *               node, d: the head (circular); count at e (-1: none)
	 *   TREE        a: root pointer, b: left in node, c: right in node,
	 *               d: element in node; count at e
	 *   UNIQUE_PTR  a: the pointer
	 *   SHARED_PTR  a: the pointer, b: the control block pointer; in the
	 *               block, c: use count, d: weak count (4 bytes each for
	 *               libstdc++, 8 for libc++, which counts from 0)
	 *   OPTIONAL    a: the value, b: the engaged flag (1 byte)
	 *   VARIANT     a: the alternatives, b: the index (.index_size bytes)
	 *   ATOMIC      a: the value
	 *   RC          a: the pointer to the block (node_size bytes); in
	 *               the block, b: the value, c: strong count, d: weak
	 *               count (8 bytes each; the weak count holds one more
	 *               while a strong reference lives); with str_value,
	 *               the text's length at f (elem NULL); Weak's pointer
	 *               is usize::MAX when it has no block (Weak::new())
	 *   CELL        a: the value, b: RefCell's borrow count (8 bytes,
	 *               signed; -1 for a Cell)
	 *   RING        a: the buffer, b: the first element's index (tail),
	 *               c: one past the last's (head), d: the capacity, a
	 *               power of two; with ring_len, b: the first
	 *               element's index (head), c: the count, d: the
	 *               capacity, elements at (b + i) mod d
	 *   HASH        a: the control bytes pointer, b: the bucket mask,
	 *               count at e; elements ((K, V), or (K, ()) of a set)
	 *               before the control bytes, bucket i's at ctrl - (i +
	 *               1) * size; c: the key in the element, d: the value
	 *               (-1 in a set)
	 *   ITERATOR    a: the node or element pointer, b: the element in
	 *               the node (0: the pointer is the element's); of
	 *               vector<bool>'s (elem NULL), c: the bit's index (4
	 *               bytes) in the iterator, the word at the pointer
	 *   BTREE       a: the root node pointer, b: its height (8 bytes),
	 *               count at e; in a node of node_size bytes (a leaf's),
	 *               c: its keys, d: its values, f: its count (2 bytes),
	 *               g: an internal node's child pointers (after its leaf
	 *               part); alt[0] the key, alt[1] the value (of a set:
	 *               one without bytes) */
	int64_t a, b, c, d, e, f, g;
	uint64_t node_size;  /* LIST, TREE: bytes of a node up to its element's end */
	unsigned index_size;
	const char *weak;    /* SHARED_PTR, RC: "weak" for a weak_ptr or Weak, else NULL */
	/* VARIANT: the alternatives; TUPLE: the elements and their offsets */
	const struct dw_type *alt[DW_STD_MAX_ALTS];
	uint64_t alt_off[DW_STD_MAX_ALTS];
	unsigned n_alts;
};

/* Recognise @t (a struct type, through typedefs and qualifiers) as one
 * of the standard library's (C++'s, or Rust's as rustc 1.63 to 1.95 lay it out:
 * String, &str, Vec, slices, Box<[T]>, Rc, Arc, Cell, RefCell,
 * VecDeque, HashMap, HashSet, BTreeMap, BTreeSet): true with *@out filled, false when it is
 * not one (or not one whose layout this version knows). */
bool dw_std_recognize(const struct dw_type *t, struct dw_std *out);

/* Rust's core::num::nonzero::NonZero<T> (rustc 1.79+), which rust-gdb
 * shows as its number: the integer inside its newtypes (its offset in
 * *@off); NULL for another type. */
const struct dw_type *dw_std_nonzero(const struct dw_type *t, uint64_t *off);

/* gdb's short name of a type in a printer's label: "std::string" for
 * std::__cxx11::basic_string<char, ...>, else the type's name. */
const char *dw_std_type_name(const struct dw_type *t);

/* Whether @t is libstdc++'s std::pair, which gdb's printer shows as its
 * first and second alone, without its empty base std::__pair_base. */
bool dw_std_is_pair(const struct dw_type *t);

/* Whether a value of @t needs memory outside itself to be printed (a
 * string's characters, a container's elements), anywhere inside it,
 * down to @depth levels of members. */
bool dw_std_walkable(const struct dw_type *t, int depth);

/* The C++ static data members a value of @t shows that are variables of
 * their own (not constants the compiler folded): its class's, its
 * members' and bases', its array elements', and those of static members
 * of class type, each once, in the order gdb meets them; of a library
 * value (unless @raw), its elements' only (the printer hides its
 * members).  At most @max into @out (borrowed from @t's module); returns
 * how many. */
size_t dw_type_statics(const struct dw_type *t, bool raw, const struct dw_static **out, size_t max);

#endif
