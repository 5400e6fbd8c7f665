/* buildid.c - build-ids of wraith and of the kernel (see buildid.h). */
#include "util/buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define MAX_ID 64

int build_id_in_notes(const void *notes, size_t size, const unsigned char **id, size_t *len)
{
	const unsigned char *p = notes, *end = p + size;

	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) n;
		const unsigned char *name, *desc;

		memcpy(&n, p, sizeof(n));
		name = p + sizeof(n);
		if (n.n_namesz > (size_t)(end - name))
			break;
		desc = name + ((n.n_namesz + 3) & ~3u);
		if (desc > end || n.n_descsz > (size_t)(end - desc))
			break;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
		    n.n_descsz > 0 && n.n_descsz <= MAX_ID) {
			*id = desc;
			*len = n.n_descsz;
			return 0;
		}
		if (((n.n_descsz + 3) & ~3u) > (size_t)(end - desc))
			break;
		p = desc + ((n.n_descsz + 3) & ~3u);
	}
	return -ENOENT;
}

static unsigned char self_id[MAX_ID];
static size_t self_len;

/* The first object dl_iterate_phdr() reports is the executable. */
static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *id;
		size_t len;

		if (ph->p_type == PT_NOTE &&
		    build_id_in_notes((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
				      &id, &len) == 0) {
			memcpy(self_id, id, len);
			self_len = len;
			break;
		}
	}
	return 1; /* only the executable counts */
}

static void look_self(void)
{
	dl_iterate_phdr(find_self, NULL);
}

int build_id_self(const unsigned char **id, size_t *len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, look_self);
	*id = self_id;
	*len = self_len;
	return self_len ? 0 : -ENOENT;
}

static unsigned char kernel_id[MAX_ID];
static size_t kernel_len;

static void look_kernel(void)
{
	unsigned char notes[4096];
	const unsigned char *found;
	ssize_t n = -1;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, notes, sizeof(notes));
		close(fd);
	}
	if (n > 0 && build_id_in_notes(notes, (size_t)n, &found, &kernel_len) == 0)
		memcpy(kernel_id, found, kernel_len);
	else
		kernel_len = 0;
}

int build_id_kernel(const unsigned char **id, size_t *len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, look_kernel);
	*id = kernel_id;
	*len = kernel_len;
	return kernel_len ? 0 : -ENOENT;
}
