/* prefault.c - the executable's pages mapped in bulk at start, not fault by fault.
 *
 * wraith links LLVM statically, and LLVM's static constructors (thousands
 * of command-line option objects) write almost every page of the
 * executable's .data and .bss before main() runs: about a hundred pages,
 * each a separate page fault.  In a virtual machine a fault costs ~10 us,
 * so one madvise(MADV_POPULATE_WRITE) over those pages, before the other
 * constructors run, saves a millisecond or two of every start.  The part
 * the dynamic linker made read-only after relocating it (PT_GNU_RELRO) is
 * skipped: it is already written, and populating it for writing fails.
 * Best effort: a kernel without the advice (before Linux 5.14) faults the
 * pages in as before.
 *
 * The heap gets the same treatment by other means.  Compiling the first
 * probe allocates a few megabytes, page by page, on two threads: each new
 * page of heap was a fault (about 700 of a start's 1,800), and large blocks
 * went to mmap() and back to munmap() on every free.  So malloc is told
 * before anyone else allocates much: one arena for every thread, blocks
 * under 8 MiB from the heap, freed memory kept up to 64 MiB, and the heap
 * grown once by HEAP_RESERVE, which is advised to use transparent huge
 * pages: one fault then brings in 2 MiB.  The reserve is address space
 * only; pages count when touched.  On a kernel where transparent huge
 * pages are off, the advice does nothing and the faults are as before.
 *
 * The code and constants are read, not written, but every page of them
 * touched is a fault too: a read fault maps the 16 pages around it, and
 * still costs ~20 us here.  A start touches about 300 spread over the
 * executable's 28 MB (LLVM's constructors a hundred and more before
 * main(), the compile most of the rest).  So a thread of its own maps them
 * all with madvise(MADV_POPULATE_READ), the executable's first, then the
 * libraries', while the main thread runs the constructors: the second CPU
 * is idle until main() starts threads.  Mapping all of them costs ~2 ms
 * of CPU, on that thread; the pages are the page cache's (a first run
 * reads them from disk there instead of fault by fault).
 *
 * Linked into the wraith executable itself (not libwraith.a, where nothing
 * would pull it in): the constructor's priority runs it before LLVM's.
 */
#include "config.h"

#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HEAP_RESERVE (32u << 20)
#define HUGE_PAGE (2u << 20)

static uintptr_t segment_end(const struct dl_phdr_info *info, const ElfW(Phdr) *ph)
{
	return info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
}

/* The first object dl_iterate_phdr() reports is the executable. */
static int populate_writable(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), relro_end = 0;

	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
			/* ld.so protects whole pages only: the last one stays writable. */
			relro_end = segment_end(info, &info->dlpi_phdr[i]) & ~(page - 1);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		uintptr_t end = (segment_end(info, ph) + page - 1) & ~(page - 1);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		if (relro_end > start)
			start = relro_end;
		if (end > start)
			(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	}
	return 1;
}

/* The read-only segments of the executable and its libraries, in the
 * order dl_iterate_phdr() reports them (the executable first). */
#define MAX_READONLY 16

static struct span {
	uintptr_t start, end;
} readonly[MAX_READONLY];
static size_t n_readonly;

static int find_readonly(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	(void)size;
	(void)data;
	/* The vDSO is the kernel's, not a file's. */
	if (info->dlpi_name && strstr(info->dlpi_name, "linux-vdso"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && n_readonly < MAX_READONLY; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		readonly[n_readonly].start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		readonly[n_readonly].end = (segment_end(info, ph) + page - 1) & ~(page - 1);
		n_readonly++;
	}
	return 0;
}

static void *populate_readonly(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n_readonly; i++)
		(void)madvise((void *)readonly[i].start, readonly[i].end - readonly[i].start,
			      MADV_POPULATE_READ);
	return NULL;
}

/* Detached, with every signal blocked (they are the main thread's); its
 * work is done long before wraith exits, and exit ends it if not. */
static void populate_readonly_start(void)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;

	dl_iterate_phdr(find_readonly, NULL);
	if (!n_readonly || pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 << 10);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	(void)pthread_create(&thread, &attr, populate_readonly, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

static void heap_setup(void)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;
	void *grow;

	if (!mallopt(M_ARENA_MAX, 1) || !mallopt(M_MMAP_THRESHOLD, 8 << 20) ||
	    !mallopt(M_TRIM_THRESHOLD, 64 << 20) || !mallopt(M_TOP_PAD, HEAP_RESERVE))
		return; /* not glibc's allocator (a sanitizer's, say): left alone */
	start = ((uintptr_t)sbrk(0) + page - 1) & ~(page - 1);
	grow = malloc(256 << 10);
	end = (uintptr_t)sbrk(0) & ~(page - 1);
	free(grow);
	(void)mallopt(M_TOP_PAD, 1 << 20);
	/* Only whole huge pages inside the reserve can be huge. */
	start = (start + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (grow && end > start)
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}

__attribute__((constructor(101))) static void prefault_data(void)
{
	dl_iterate_phdr(populate_writable, NULL);
	heap_setup();
	populate_readonly_start();
}
