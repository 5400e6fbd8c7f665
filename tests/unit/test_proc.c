/* test_proc.c - /proc/PID/maps parsing against canned maps text with golden
 * results (tests/unit/data/proc/), malformed lines, and live checks on this
 * process, on a zombie child, on pid 2 (kthreadd, a kernel thread) and on a
 * pid that does not exist.  Canned data is found through WRAITH_SRCDIR,
 * which `make check` sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/libpath.h"
#include "proc/linkmap.h"
#include "proc/maps.h"
#include "proc/stable.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char *data_path(const char *name)
{
	const char *srcdir = getenv("WRAITH_SRCDIR");

	if (!srcdir)
		fail_msg("WRAITH_SRCDIR is not set: run through `make check` or set it to the "
			 "source directory");
	return xasprintf("%s/tests/unit/data/proc/%s", srcdir, name);
}

static char *read_data(const char *name)
{
	char *path = data_path(name);
	char *text = NULL;
	int err = file_read(path, &text, NULL);

	if (err)
		fail_msg("cannot read %s: %s", path, wr_strerror(err));
	free(path);
	return text;
}

static void render_maps(const struct proc_maps *maps, struct strbuf *sb)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_mapping *m = &maps->v[i];

		strbuf_addf(sb, "%" PRIx64 "-%" PRIx64 " %s off=%" PRIx64 " dev=%u:%u ino=%" PRIu64
			    " code=%s deleted=%s path=<%s>\n",
			    m->start, m->end, m->perms, m->offset, m->dev_major, m->dev_minor, m->inode,
			    proc_mapping_is_code(m) ? "yes" : "no", m->deleted ? "yes" : "no", m->path);
	}
}

static void test_parse_golden(void **state)
{
	char *text = read_data("basic.maps");
	char *golden = read_data("basic.golden");
	struct proc_maps maps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(proc_maps_parse(text, &maps), 0);
	assert_int_equal(maps.n, 17);
	render_maps(&maps, &sb);
	assert_string_equal(sb.buf, golden);
	strbuf_release(&sb);
	proc_maps_release(&maps);
	assert_null(maps.v);
	assert_int_equal(maps.n, 0);
	free(text);
	free(golden);
}

static void test_parse_edges(void **state)
{
	struct proc_maps maps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(proc_maps_parse("", &maps), 0);
	assert_int_equal(maps.n, 0);
	proc_maps_release(&maps);

	/* No trailing newline, blank lines between, upper-case hex. */
	assert_int_equal(proc_maps_parse("\n1000-2FFF r-xs 0000ABC0 0a:1F 7 /bin/x\n\n"
					 "3000-4000 ---p 00000000 00:00 0",
					 &maps),
			 0);
	render_maps(&maps, &sb);
	assert_string_equal(sb.buf, "1000-2fff r-xs off=abc0 dev=10:31 ino=7 code=yes deleted=no path=</bin/x>\n"
				    "3000-4000 ---p off=0 dev=0:0 ino=0 code=no deleted=no path=<>\n");
	strbuf_release(&sb);
	proc_maps_release(&maps);
}

static void test_parse_malformed(void **state)
{
	static const char *const bad[] = {
		"garbage\n",
		"1000 2000 r-xp 00000000 08:01 1 /x\n",       /* no '-' */
		"1000-2000 rxp 00000000 08:01 1 /x\n",        /* short perms */
		"1000-2000 r-xq 00000000 08:01 1 /x\n",       /* bad share flag */
		"1000-2000 r-xp 00000000 08:01\n",            /* no inode */
		"1000-2000 r-xp 00000000 0801 1 /x\n",        /* no ':' in dev */
		"10g0-2000 r-xp 00000000 08:01 1 /x\n",       /* not hex */
		"2000-1000 r-xp 00000000 08:01 1 /x\n",       /* end < start */
		"1000-2000 r-xp 00000000 08:01 12a /x\n",     /* inode not decimal */
		"1000-2000\tr-xp 00000000 08:01 1 /x\n",      /* tab */
		"10000000000000000-2000 r-xp 0 08:01 1 /x\n", /* overflow */
		"1000-2000 r-xp 00000000 100000000:01 1 /x\n",/* major > 32 bits */
		"1000-2000 r-xp 0 08:01 1 /ok\nnot a line\n", /* bad second line */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct proc_maps maps = { .n = 99 };

		if (proc_maps_parse(bad[i], &maps) != -WR_EPROTO)
			fail_msg("accepted malformed maps text: %s", bad[i]);
		assert_int_equal(maps.n, 0);
		assert_null(maps.v);
	}
}

static const struct proc_mapping *find_mapping(const struct proc_maps *maps, uint64_t addr)
{
	for (size_t i = 0; i < maps->n; i++)
		if (addr >= maps->v[i].start && addr < maps->v[i].end)
			return &maps->v[i];
	return NULL;
}

static void test_live_self(void **state)
{
	struct proc_maps maps;
	const struct proc_mapping *code, *heap;
	struct stat st;
	char *heap_obj = xmalloc(64);

	(void)state;
	assert_int_equal(proc_check_pid(getpid()), 0);
	assert_int_equal(proc_maps_read(getpid(), &maps), 0);
	assert_true(maps.n > 3);
	code = find_mapping(&maps, (uint64_t)(uintptr_t)&test_live_self);
	assert_non_null(code);
	assert_true(proc_mapping_is_code(code));
	assert_int_equal(stat(code->path, &st), 0);
	assert_int_equal((uint64_t)st.st_ino, code->inode);
	heap = find_mapping(&maps, (uint64_t)(uintptr_t)heap_obj);
	assert_non_null(heap);
	assert_false(proc_mapping_is_code(heap));
	assert_int_equal(heap->perms[1], 'w');
	proc_maps_release(&maps);
	free(heap_obj);
}

/* A child running a known program: our own /proc/PID/exe would name
 * valgrind's tool when the test runs under valgrind. */
static void test_live_exe_comm(void **state)
{
	char *want = realpath("/bin/sleep", NULL);
	char *exe = NULL, *comm = NULL;
	int status;
	pid_t child;

	(void)state;
	assert_non_null(want);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		execl(want, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		free(exe);
		exe = NULL;
		if (proc_exe_path(child, &exe) == 0 && strcmp(exe, want) == 0)
			break;
		usleep(10000);
	}
	assert_string_equal(exe, want);
	assert_int_equal(proc_comm(child, &comm), 0);
	assert_string_equal(comm, "sleep");
	assert_int_equal(proc_check_pid(child), 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	free(exe);
	free(comm);
	free(want);

	assert_int_equal(prctl(PR_SET_NAME, "wr-comm-test", 0, 0, 0), 0);
	assert_int_equal(proc_comm(getpid(), &comm), 0);
	assert_string_equal(comm, "wr-comm-test");
	free(comm);
}

static void test_kernel_thread(void **state)
{
	char *comm = NULL;
	struct proc_maps maps;

	(void)state;
	if (proc_comm(2, &comm) != 0 || strcmp(comm, "kthreadd") != 0) {
		free(comm);
		print_message("pid 2 is not kthreadd here (a PID namespace?)\n");
		skip();
	}
	free(comm);
	assert_int_equal(proc_check_pid(2), -WR_EKTHREAD);
	assert_int_equal(proc_maps_read(2, &maps), 0);
	assert_int_equal(maps.n, 0);
	proc_maps_release(&maps);
}

static pid_t unused_pid(void)
{
	char *text = NULL;
	long max = 32768;
	char path[64];

	if (file_read("/proc/sys/kernel/pid_max", &text, NULL) == 0)
		max = atol(text);
	free(text);
	for (long pid = max - 1; pid > 300; pid--) {
		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (access(path, F_OK) != 0)
			return (pid_t)pid;
	}
	fail_msg("no unused pid found");
	return -1;
}

static void test_missing_pid(void **state)
{
	pid_t pid = unused_pid();
	struct proc_maps maps;
	char *s = NULL;

	(void)state;
	assert_int_equal(proc_check_pid(pid), -WR_ENOPROC);
	assert_int_equal(proc_check_pid(0), -WR_ENOPROC);
	assert_int_equal(proc_check_pid(-5), -WR_ENOPROC);
	assert_int_equal(proc_maps_read(pid, &maps), -ENOENT);
	assert_int_equal(maps.n, 0);
	assert_int_equal(proc_exe_path(pid, &s), -ENOENT);
	assert_null(s);
	assert_int_equal(proc_comm(pid, &s), -ENOENT);
	assert_null(s);
}

static void test_zombie(void **state)
{
	pid_t child = fork();
	char path[64];
	int status;

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	for (int i = 0; i < 500; i++) {
		char *text = NULL;
		const char *p;
		bool zombie = false;

		if (file_read(path, &text, NULL) == 0) {
			p = strrchr(text, ')');
			zombie = p && p[1] == ' ' && p[2] == 'Z';
		}
		free(text);
		if (zombie)
			break;
		usleep(10000);
	}
	assert_int_equal(proc_check_pid(child), -ESRCH);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(proc_check_pid(child), -WR_ENOPROC);
}

/* ---- libraries by short name ---- */

static void test_lib_name_rank(void **state)
{
	(void)state;
	assert_int_equal(lib_name_rank("libc.so.6", "libc.so.6"), 3);
	assert_int_equal(lib_name_rank("libc.so.6", "libc"), 2);
	assert_int_equal(lib_name_rank("libc.so", "libc"), 2);
	assert_int_equal(lib_name_rank("libc.so.6", "c"), 2);
	assert_int_equal(lib_name_rank("libc-2.31.so", "libc"), 1);
	assert_int_equal(lib_name_rank("libfix_a-O2fp.so", "libfix_a"), 1);
	assert_int_equal(lib_name_rank("libcrypto.so.3", "libc"), 0);
	assert_int_equal(lib_name_rank("libc.sox", "libc"), 0);
	assert_int_equal(lib_name_rank("libc-dev", "libc"), 0);
	assert_int_equal(lib_name_rank("chain-O2", "chain"), 0);
}

/* The dynamic linker's cache: libc is this machine's libc.so.6. */
static void test_lib_find(void **state)
{
	char *path = NULL, *c = NULL, *want = realpath("/lib/x86_64-linux-gnu/libc.so.6", NULL);
	struct strbuf cands = STRBUF_INIT;

	(void)state;
	if (!want)
		skip();
	assert_int_equal(lib_find("libc", &path, NULL), 0);
	assert_string_equal(path, want);
	assert_int_equal(lib_find("c", &c, NULL), 0);
	assert_string_equal(c, want);
	free(c);
	assert_int_equal(lib_find("libno_such_library_here", &c, &cands), -ENOENT);
	assert_null(c);
	assert_string_equal(cands.buf, "");
	free(path);
	free(want);
	strbuf_release(&cands);
}

/* A soname as the dynamic linker finds it after the object's own paths:
 * libc.so.6 from the cache, never a short name's near match. */
static void test_lib_find_soname(void **state)
{
	char *path = NULL, *got = NULL, *want = realpath("/lib/x86_64-linux-gnu/libc.so.6", NULL);

	(void)state;
	if (!want)
		skip();
	assert_int_equal(lib_find_soname("libc.so.6", &path), 0);
	got = realpath(path, NULL);
	assert_string_equal(got, want);
	free(path);
	assert_int_equal(lib_find_soname("libc", &path), -ENOENT);
	assert_null(path);
	assert_int_equal(lib_find_soname("libno_such_library_here.so.1", &path), -ENOENT);
	free(got);
	free(want);
}

/* Which memory may be read after a probe fired: private read-only
 * mappings of files only; never writable, shared, anonymous or special
 * memory.  A span goes on into an adjacent stable mapping and stops at a
 * writable one. */
static void test_stable_decision(void **state)
{
	static const char text[] =
		"1000-2000 r--p 00000000 08:01 10 /usr/lib/libx.so\n"
		"2000-3000 r-xp 00001000 08:01 10 /usr/lib/libx.so\n"
		"3000-4000 rw-p 00002000 08:01 10 /usr/lib/libx.so\n"
		"4000-5000 r--p 00000000 00:00 0 \n"
		"5000-6000 r--s 00000000 08:01 11 /data/db.mdb\n"
		"6000-7000 r--p 00000000 00:00 0 [vvar]\n"
		"7000-8000 ---p 00000000 08:01 10 /usr/lib/libx.so\n"
		"9000-a000 r--p 00000000 08:01 12 /usr/lib/liby.so (deleted)\n";
	static const bool stable[] = { true, true, false, false, false, false, false, true };
	struct proc_maps maps;
	bool known;

	(void)state;
	assert_int_equal(proc_maps_parse(text, &maps), 0);
	assert_int_equal(maps.n, sizeof(stable) / sizeof(stable[0]));
	for (size_t i = 0; i < maps.n; i++)
		if (proc_mapping_is_stable(&maps.v[i]) != stable[i])
			fail_msg("mapping %zu (%s %s): stable should be %d", i, maps.v[i].perms,
				 maps.v[i].path, stable[i]);
	assert_int_equal(proc_stable_span(&maps, 0x1800, 0x100, &known), 0x100);
	assert_true(known);
	assert_int_equal(proc_stable_span(&maps, 0x1800, 0x4000, NULL), 0x1800); /* to rw- */
	assert_int_equal(proc_stable_span(&maps, 0x3800, 8, &known), 0);
	assert_true(known);
	assert_int_equal(proc_stable_span(&maps, 0x4800, 8, NULL), 0);
	assert_int_equal(proc_stable_span(&maps, 0x5800, 8, NULL), 0);
	assert_int_equal(proc_stable_span(&maps, 0x9ff8, 16, NULL), 8); /* to the end */
	assert_int_equal(proc_stable_span(&maps, 0x8800, 8, &known), 0);
	assert_false(known);
	proc_maps_release(&maps);
}

static const char stable_text[] = "read-only data of the test";
static char writable_text[] = "writable data of the test";

/* This process's read-only data reads back; its writable data, a private
 * anonymous page and an unmapped address do not. */
static void test_stable_read_live(void **state)
{
	struct proc_stable_cache *c = proc_stable_cache_new();
	char buf[64];
	void *anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(anon != MAP_FAILED);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(proc_stable_read(c, getpid(), (uintptr_t)stable_text, buf, sizeof(stable_text)),
			 sizeof(stable_text));
	assert_string_equal(buf, stable_text);
	assert_int_equal(proc_stable_read(c, getpid(), (uintptr_t)writable_text, buf, 8), 0);
	assert_int_equal(proc_stable_read(c, getpid(), (uintptr_t)anon, buf, 8), 0);
	munmap(anon, 4096);
	assert_int_equal(proc_stable_read(c, getpid(), (uintptr_t)anon, buf, 8), 0);
	proc_stable_cache_free(c);
}

/* proc_tls_module on this process: every library with thread-local
 * storage has the module id dl_iterate_phdr gives, and a static block at
 * the thread pointer less its offset is this thread's block. */
extern ElfW(Dyn) _DYNAMIC[];

static int check_tls_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct proc_tls_query q = { .dynamic = (uint64_t)(uintptr_t)_DYNAMIC, .l_addr = info->dlpi_addr };
	struct proc_tls_module m;
	const char *why = NULL;
	unsigned *checked = data;
	uint64_t tp;

	(void)size;
	if (!info->dlpi_name[0] || !info->dlpi_tls_modid)
		return 0; /* the program itself, or no TLS */
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS) {
			q.filesz = info->dlpi_phdr[i].p_filesz;
			q.memsz = info->dlpi_phdr[i].p_memsz;
			q.align = info->dlpi_phdr[i].p_align;
		}
	assert_int_equal(proc_tls_module(getpid(), &q, &m, &why), 0);
	assert_int_equal(m.modid, info->dlpi_tls_modid);
	asm("mov %%fs:0, %0" : "=r"(tp));
	if (m.offset > 0 && info->dlpi_tls_data) {
		assert_int_equal(tp - (uint64_t)m.offset, (uint64_t)(uintptr_t)info->dlpi_tls_data);
		checked[1]++;
	}
	checked[0]++;
	return 0;
}

static void test_tls_module_self(void **state)
{
	struct proc_tls_query q = { .dynamic = (uint64_t)(uintptr_t)_DYNAMIC, .l_addr = 12345 };
	struct proc_tls_module m;
	const char *why = NULL;
	unsigned checked[2] = { 0, 0 }; /* libraries, of them with a static block */

	(void)state;
	dl_iterate_phdr(check_tls_module, checked);
	assert_true(checked[0] >= 1 && checked[1] >= 1); /* libc.so.6 at least (errno) */
	/* a module the list does not have */
	assert_int_equal(proc_tls_module(getpid(), &q, &m, &why), -ENOENT);
	assert_non_null(strstr(why, "does not name the library"));
	/* a process that is gone */
	assert_true(proc_tls_module(999999999, &q, &m, &why) < 0);
	assert_non_null(strstr(why, "cannot be read"));
}

/* The TLS members where glibc 2.36 keeps them, elsewhere (another glibc),
 * ambiguous, or absent. */
static void put_tls(uint64_t *w, size_t at, uint64_t offset, uint64_t modid)
{
	w[at] = 100;        /* l_tls_initimage_size */
	w[at + 1] = 4096;   /* l_tls_blocksize */
	w[at + 2] = 64;     /* l_tls_align */
	w[at + 3] = 0;      /* l_tls_firstbyte_offset */
	w[at + 4] = offset; /* l_tls_offset */
	w[at + 5] = modid;  /* l_tls_modid */
}

static void test_link_map_tls(void **state)
{
	static uint64_t w[256];
	struct proc_tls_query q = { .filesz = 100, .memsz = 4096, .align = 64 };
	struct proc_tls_module m;

	(void)state;
	put_tls(w, 1112 / 8, 4160, 3);
	assert_int_equal(proc_link_map_tls(w, 256, &q, &m), 0);
	assert_int_equal(m.offset, 4160);
	assert_int_equal(m.modid, 3);
	memset(w, 0, sizeof(w));
	put_tls(w, 100, (uint64_t)-1, 5);
	assert_int_equal(proc_link_map_tls(w, 256, &q, &m), 0);
	assert_int_equal(m.offset, -1);
	assert_int_equal(m.modid, 5);
	put_tls(w, 40, 0, 6);
	assert_int_equal(proc_link_map_tls(w, 256, &q, &m), -ENOENT);
	memset(w, 0, sizeof(w));
	put_tls(w, 1112 / 8, 4160, 0); /* module id 0 is no module */
	assert_int_equal(proc_link_map_tls(w, 256, &q, &m), -ENOENT);
	q.memsz = 4095;
	put_tls(w, 60, 4160, 2);
	assert_int_equal(proc_link_map_tls(w, 256, &q, &m), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_golden),
		cmocka_unit_test(test_parse_edges),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_live_self),
		cmocka_unit_test(test_live_exe_comm),
		cmocka_unit_test(test_kernel_thread),
		cmocka_unit_test(test_missing_pid),
		cmocka_unit_test(test_zombie),
		cmocka_unit_test(test_lib_name_rank),
		cmocka_unit_test(test_lib_find),
		cmocka_unit_test(test_lib_find_soname),
		cmocka_unit_test(test_stable_decision),
		cmocka_unit_test(test_stable_read_live),
		cmocka_unit_test(test_tls_module_self),
		cmocka_unit_test(test_link_map_tls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
