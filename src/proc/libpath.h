/* libpath.h - a library named the short way, as bpftrace accepts it:
 * `libc` for libc.so.6, `libfix_a` for libfix_a-O2.so.
 *
 * Layer rule: proc/ depends on util/ only.
 *
 * A short name is a name without '/'.  It matches a file's base name that
 * is the name itself (rank 3), the name followed by ".so" and anything
 * (rank 2: libc.so.6), or by '-' and anything with ".so" in it (rank 1:
 * libc-2.31.so).  A name without the "lib" prefix is also tried with it,
 * so `c` finds libc.so.6 too.  Where several files match, the best rank
 * wins; several at the best rank are ambiguous.
 */
#ifndef WRAITH_PROC_LIBPATH_H
#define WRAITH_PROC_LIBPATH_H

#include <stddef.h>

struct strbuf;

/* How well base name @base matches short name @name: 0 (not at all) to 3
 * (the same name). */
int lib_name_rank(const char *base, const char *name);

/* Find the library @name (a short name) the way the dynamic linker would:
 * in /etc/ld.so.cache (x86-64 entries), else in the standard library
 * directories.  Returns 0 and the path in *out (caller frees), -ENOENT, or
 * -EEXIST when several libraries match equally well (their paths, one
 * per line, in @candidates if not NULL). */
int lib_find(const char *name, char **out, struct strbuf *candidates);

/* Find the library whose soname (DT_NEEDED name) is @soname as the dynamic
 * linker does after the object's own DT_RPATH/DT_RUNPATH: the entry of
 * /etc/ld.so.cache for it (x86-64), else a file of that name in the
 * default directories.  Returns 0 and the path in *out (caller frees), or
 * -ENOENT. */
int lib_find_soname(const char *soname, char **out);

#endif
