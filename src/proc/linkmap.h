/* linkmap.h - what a process's dynamic linker knows of a loaded module's
 * thread-local variables: glibc's struct link_map, reached through the
 * program's r_debug (DT_DEBUG), read from /proc/PID/mem.
 *
 * Layer rule: proc/ depends on util/ only.
 */
#ifndef WRAITH_PROC_LINKMAP_H
#define WRAITH_PROC_LINKMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The module to find: its load bias (link_map.l_addr) and its PT_TLS
 * segment's sizes, which the dynamic linker copied into its link_map. */
struct proc_tls_query {
	uint64_t dynamic;   /* run-time address of the program's dynamic section */
	uint64_t l_addr;    /* the module's load bias */
	uint64_t filesz, memsz, align;
};

/* The module's TLS module id (l_tls_modid, its index in each thread's
 * DTV) and static offset (l_tls_offset: its block is that far below the
 * thread pointer; 0 or -1 when it has no static block: a dlopen'ed
 * module, allocated per thread on first use). */
struct proc_tls_module {
	uint64_t modid;
	int64_t offset;
};

/* Find @q's module in process @pid's link_map list.  Returns 0, or a
 * negative errno with *@why (static text) saying what was missing. */
int proc_tls_module(pid_t pid, const struct proc_tls_query *q, struct proc_tls_module *out,
		    const char **why);

/* The TLS members of a copy of a link_map, @w (@n words): at glibc
 * 2.36's offset when the sizes there match @q, else the one place in @w
 * where they do.  Returns 0, or -ENOENT when no place (or more than one)
 * matches. */
int proc_link_map_tls(const uint64_t *w, size_t n, const struct proc_tls_query *q,
		      struct proc_tls_module *out);

#endif
