/* module.h - one ELF file (executable or shared library) and its debug info.
 *
 * Layer rule: dwarf/ depends on util/ only and is the one directory that
 * includes elfutils headers (libelf, libdw, libdwfl) and libiberty, but
 * for unwind/, which reads a module's CFI through dwarf/module_cfi.h.
 *
 * A dw_module is opened by path once per file and shared by every process
 * that maps it.  It holds one libdwfl session with that single module placed
 * at bias 0, so every address in this API is an ELF virtual address ("pc"),
 * never a runtime address.  Separate debug info (.gnu_debuglink, build-id
 * under /usr/lib/debug) is found through libdwfl's standard search.
 * Expensive parts (DWARF, symbol tables, the function index) load lazily on
 * first use.
 */
#ifndef WRAITH_DWARF_MODULE_H
#define WRAITH_DWARF_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_module;

/* Open @path.  Returns 0 and a new module in *out (caller frees with
 * dw_module_free), -ENOENT, or -WR_EELF for a file that is not a 64-bit
 * little-endian x86-64 ELF. */
int dw_module_open(const char *path, struct dw_module **out);
/* The same for a file reached by a path that is not its name: a file
 * deleted or replaced on disk that a process still maps
 * (/proc/PID/map_files/...), or an image copied out of a process.  The
 * module is named, and its separate debug info searched, by @shown. */
int dw_module_open_as(const char *path, const char *shown, struct dw_module **out);
/* NULL is a no-op. */
void dw_module_free(struct dw_module *m);

/* Basename of the module's path.  Borrowed; valid until dw_module_free(). */
const char *dw_module_name(const struct dw_module *m);

/* True when DWARF debug info (.debug_info, possibly separate) was found. */
bool dw_module_has_dwarf(struct dw_module *m);

/* False when the module's line tables cannot name @file (its base name is
 * in none of their string sections), found without opening its DWARF;
 * true when they may, or when that cannot be told (linefiles.c). */
bool dw_module_may_name_file(struct dw_module *m, const char *file);
/* True for ET_DYN (PIE or shared library): what dlopen() can load. */
bool dw_module_is_dyn(const struct dw_module *m);

/* File offset of the byte at virtual address @vaddr, from the PT_LOAD
 * headers; this is the offset a uprobe is attached at.  Returns 0 or
 * -ERANGE when no loadable segment holds @vaddr. */
int dw_module_vaddr_to_offset(const struct dw_module *m, uint64_t vaddr, uint64_t *offset);
/* Virtual address of file offset @offset (the inverse, for computing the
 * load bias of a mapping).  Returns 0 or -ERANGE. */
int dw_module_offset_to_vaddr(const struct dw_module *m, uint64_t offset, uint64_t *vaddr);
/* Where a program's own thread-local block lies below the thread pointer
 * (x86-64, glibc's static TLS): a variable at offset o of the block is at
 * fsbase - *@off + o.  Returns 0, or -ENOENT for a library (its block's
 * place is chosen by the dynamic linker) or a module without PT_TLS. */
int dw_module_static_tls_offset(const struct dw_module *m, uint64_t *off);

/* The module's PT_TLS segment: its thread-local variables' initial image
 * (filesz bytes) and block (memsz bytes, aligned to align). */
struct dw_tls_segment {
	uint64_t vaddr, filesz, memsz, align;
};

/* 0 with @out, or -ENOENT when the module has no thread-local variables. */
int dw_module_tls(const struct dw_module *m, struct dw_tls_segment *out);

/* The ELF address of the module's dynamic section (PT_DYNAMIC), 0 when it
 * has none. */
uint64_t dw_module_dynamic_vaddr(const struct dw_module *m);

/* True for a program (it names an interpreter, PT_INTERP), false for a
 * shared library. */
bool dw_module_is_program(const struct dw_module *m);

/* What the module's dynamic section asks of the dynamic linker: the
 * libraries it needs (DT_NEEDED, in order) and where to look for them
 * (DT_RUNPATH, DT_RPATH: colon-separated lists as written, NULL when
 * absent).  All owned; dw_dynamic_deps_release() frees them. */
struct dw_dynamic_deps {
	char **needed;
	size_t n_needed;
	char *runpath;
	char *rpath;
};

/* Fill @out (zeroed first); a module without a dynamic section has none.
 * Returns 0. */
int dw_module_dynamic_deps(const struct dw_module *m, struct dw_dynamic_deps *out);
void dw_dynamic_deps_release(struct dw_dynamic_deps *d);
/* True when the compile unit whose code holds @pc is C++ (gdb then names
 * types as C++ does: `void (*)(void)`); false when it is not, or no
 * debug info says. */
bool dw_module_pc_is_cxx(struct dw_module *m, uint64_t pc);
/* True when @vaddr lies in an executable PT_LOAD segment. */
bool dw_module_vaddr_is_code(const struct dw_module *m, uint64_t vaddr);

/* Up to @len bytes at @vaddr of a segment the module maps read-only
 * (.rodata, code), from its file: what the process holds there too.
 * Returns how many (fewer at the segment's end), or -1 when @vaddr is in
 * no such segment or the file cannot be read. */
long dw_module_read_const(const struct dw_module *m, uint64_t vaddr, void *buf, size_t len);
/* The same, also from the part of a writable segment the loader makes
 * read-only after relocating it (PT_GNU_RELRO: vtables, in a PIE or a
 * library): for bytes no relocation touches, such as a vtable's offsets,
 * the file holds what the process holds. */
long dw_module_read_unrelocated(const struct dw_module *m, uint64_t vaddr, void *buf, size_t len);

/* @path with "." and ".." components and repeated slashes taken out,
 * lexically (a unit compiled from a relative path records
 * "/build/dir/../src/x.c").  Returns a new string; caller frees. */
char *dw_path_normalize(const char *path);

/* Where the debug info came from, for `info modules`: "embedded",
 * "build-id directory (/usr/lib/debug/...)", "debuglink (...)",
 * "--debug-file (...)", "debuginfod (...)" or "none".  Borrowed. */
const char *dw_module_debug_source(struct dw_module *m);

#endif
