/* linkmap.c - a module's TLS module id and static TLS offset, read from
 * the live process's link_map list (glibc, x86-64).
 *
 * struct link_map's public head (l_addr, l_name, l_ld, l_next) is ABI;
 * the TLS members behind it are not.  They are found where glibc 2.36
 * keeps them, and only believed when the sizes next to them match the
 * module's PT_TLS segment (l_tls_initimage_size, l_tls_blocksize and
 * l_tls_align are p_filesz, p_memsz and p_align); otherwise the first
 * 2 KiB of the link_map are searched for that signature, which must then
 * occur exactly once.  The three members are followed by
 * l_tls_firstbyte_offset, l_tls_offset and l_tls_modid in every glibc
 * that has them.
 */
#include "proc/linkmap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LM_NEXT 24          /* struct link_map: l_addr 0, l_name 8, l_ld 16, l_next 24 */
#define LM_TLS_2_36 1112    /* l_tls_initimage_size in glibc 2.36 */
#define LM_SPAN 2048        /* how much of a link_map the search looks at */
#define LM_MAX_MODULES 4096 /* a corrupt or cyclic list ends here */

static int read_at(int fd, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -EFAULT;
}

static int read_word(int fd, uint64_t addr, uint64_t *out)
{
	return read_at(fd, addr, out, sizeof(*out));
}

/* The program's r_debug, from its DT_DEBUG entry (the dynamic linker
 * fills it in at start). */
static int find_r_debug(int fd, uint64_t dynamic, uint64_t *r_debug)
{
	Elf64_Dyn d;

	for (unsigned i = 0; i < 512; i++) {
		if (read_at(fd, dynamic + i * sizeof(d), &d, sizeof(d)))
			return -EFAULT;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG && d.d_un.d_ptr) {
			*r_debug = d.d_un.d_ptr;
			return 0;
		}
	}
	return -ENOENT;
}

static bool signature_at(const uint64_t *w, size_t i, const struct proc_tls_query *q)
{
	return w[i] == q->filesz && w[i + 1] == q->memsz && w[i + 2] == q->align && w[i + 5] != 0;
}

int proc_link_map_tls(const uint64_t *w, size_t n, const struct proc_tls_query *q,
		       struct proc_tls_module *out)
{
	size_t at = LM_TLS_2_36 / 8, found = 0;

	if (at + 6 > n || !signature_at(w, at, q)) {
		for (size_t i = 4; i + 6 <= n; i++)
			if (signature_at(w, i, q)) {
				at = i;
				found++;
			}
		if (found != 1)
			return -ENOENT;
	}
	out->offset = (int64_t)w[at + 4];
	out->modid = w[at + 5];
	return 0;
}

static int read_link_map(int fd, uint64_t lm, const struct proc_tls_query *q,
			 struct proc_tls_module *out)
{
	uint64_t w[LM_SPAN / 8];
	size_t n = LM_SPAN / 8;

	/* the link_map may end closer than 2 KiB before unmapped memory */
	while (n > LM_TLS_2_36 / 8 + 6 && read_at(fd, lm, w, n * 8))
		n /= 2;
	if (n <= LM_TLS_2_36 / 8 + 6 && read_at(fd, lm, w, n * 8))
		return -EFAULT;
	return proc_link_map_tls(w, n, q, out);
}

int proc_tls_module(pid_t pid, const struct proc_tls_query *q, struct proc_tls_module *out,
		    const char **why)
{
	char path[64];
	uint64_t r_debug, lm, l_addr;
	int fd, err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "the process's memory cannot be read";
		return -errno;
	}
	*why = "the program has no r_debug (DT_DEBUG) naming its loaded modules";
	if (find_r_debug(fd, q->dynamic, &r_debug) || read_word(fd, r_debug + 8, &lm))
		goto out;
	*why = "the dynamic linker's list of modules does not name the library";
	for (unsigned i = 0; lm && i < LM_MAX_MODULES; i++) {
		if (read_word(fd, lm, &l_addr))
			break;
		if (l_addr == q->l_addr) {
			err = read_link_map(fd, lm, q, out);
			if (err)
				*why = "the dynamic linker's record of the library has no recognisable "
				       "TLS module id (not glibc?)";
			goto out;
		}
		if (read_word(fd, lm + LM_NEXT, &lm))
			break;
	}
out:
	close(fd);
	return err;
}
