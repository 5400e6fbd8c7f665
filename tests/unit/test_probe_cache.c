/* test_probe_cache.c - compiled probe objects on disk: a stored object
 * comes back renamed, and anything but the same build and the same key
 * byte for byte (another key, another build, a file named for another
 * key, a truncated or damaged file, a longer name) is a miss; a directory
 * others may write to, or that is a link, is not used; pruning drops the
 * least recently used entries.  Objects here are byte strings shaped like
 * the string tables that hold a program's name: the real objects are
 * loaded by test_codegen and the probe_cache e2e test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "codegen/probe_cache.h"
#include "util/buildid.h"
#include "util/diskcache.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char build_a[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static const unsigned char build_b[] = { 1, 2, 3, 4, 5, 6, 7, 9 };

/* "\0.text\0wr123_4\0uprobe\0" ... "\0wr123_4\0" twice, and one that is
 * only a suffix of another string (not renamed). */
static const unsigned char object[] = "\177ELF\0.text\0wr123_4\0uprobe\0xwr123_4\0BTF\0wr123_4\0";

/* The same with the longest name a program gets, for make_blob(). */
static const unsigned char object_long[] =
	"\177ELF\0.text\0wr4194304_65535\0uprobe\0xwr123_4\0BTF\0wr4194304_65535\0";

struct fixture {
	char dir[64];
	struct probe_cache *c;
};

static char *path_in(const struct fixture *f, const char *name)
{
	return xasprintf("%s/%s", f->dir, name);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct strbuf why = STRBUF_INIT;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wraith-test-pcache.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(probe_cache_open(f->dir, build_a, sizeof(build_a), &f->c, &why), 0);
	strbuf_release(&why);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	DIR *d = opendir(f->dir);
	struct dirent *e;

	probe_cache_free(f->c);
	while (d && (e = readdir(d)) != NULL) {
		char *p = path_in(f, e->d_name);

		if (e->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct bpf_blob make_blob(const char *name)
{
	struct bpf_blob b = { .size = sizeof(object_long) };

	b.data = xmalloc(b.size);
	memcpy(b.data, object_long, b.size);
	assert_int_equal(probe_cache_rename(b.data, b.size, "wr4194304_65535", name), 2);
	b.prog_name = xstrdup(name);
	return b;
}

static void test_rename(void **state)
{
	unsigned char buf[sizeof(object)];

	(void)state;
	memcpy(buf, object, sizeof(buf));
	assert_int_equal(probe_cache_rename(buf, sizeof(buf), "wr123_4", "wr9_12"), 2);
	assert_memory_equal(buf, "\177ELF\0.text\0wr9_12\0\0uprobe\0xwr123_4\0BTF\0wr9_12\0\0",
			    sizeof(buf));
	/* longer: nothing changes */
	assert_int_equal(probe_cache_rename(buf, sizeof(buf), "wr9_12", "wr12345_12"), 0);
	assert_memory_equal(buf, "\177ELF\0.text\0wr9_12\0\0uprobe\0xwr123_4\0BTF\0wr9_12\0\0",
			    sizeof(buf));
	/* a name found nowhere */
	assert_int_equal(probe_cache_rename(buf, sizeof(buf), "wr77_1", "wr78_1"), 0);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct bpf_blob in = make_blob("wr1234_5"), out;

	assert_int_equal(probe_cache_get(f->c, "key one", "wr99_5", &out), -ENOENT);
	assert_int_equal(probe_cache_put(f->c, "key one", &in), 0);
	/* the same name, a shorter one, one as long */
	assert_int_equal(probe_cache_get(f->c, "key one", "wr1234_5", &out), 0);
	assert_int_equal(out.size, in.size);
	assert_memory_equal(out.data, in.data, in.size);
	assert_string_equal(out.prog_name, "wr1234_5");
	bpf_blob_release(&out);
	assert_int_equal(probe_cache_get(f->c, "key one", "wr99_5", &out), 0);
	assert_non_null(memmem(out.data, out.size, "\0wr99_5\0\0\0", 10));
	assert_null(memmem(out.data, out.size, "wr1234_5", 8));
	assert_string_equal(out.prog_name, "wr99_5");
	bpf_blob_release(&out);
	assert_int_equal(probe_cache_get(f->c, "key one", "wr4321_6", &out), 0);
	assert_non_null(memmem(out.data, out.size, "\0wr4321_6\0", 10));
	bpf_blob_release(&out);
	/* longer than the stored name: a miss, and a new entry replaces it */
	assert_int_equal(probe_cache_get(f->c, "key one", "wr12345_56", &out), -ENOENT);
	assert_null(out.data);
	bpf_blob_release(&in);
	in = make_blob("wr12345_56");
	assert_int_equal(probe_cache_put(f->c, "key one", &in), 0);
	assert_int_equal(probe_cache_get(f->c, "key one", "wr12345_56", &out), 0);
	bpf_blob_release(&out);
	bpf_blob_release(&in);
}

/* Another key, another build, or a file named for another key (what a
 * hash collision looks like) is a miss. */
static void test_key_compared(void **state)
{
	struct fixture *f = *state;
	struct bpf_blob in = make_blob("wr1_1"), out;
	struct probe_cache *other = NULL;
	struct strbuf why = STRBUF_INIT;
	char a[32], b[32], *pa, *pb;

	assert_int_equal(probe_cache_put(f->c, "transport 0\nkey A", &in), 0);
	assert_int_equal(probe_cache_get(f->c, "transport 0\nkey B", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_get(f->c, "transport 0\nkey A!", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_open(f->dir, build_b, sizeof(build_b), &other, &why), 0);
	assert_int_equal(probe_cache_get(other, "transport 0\nkey A", "wr1_1", &out), -ENOENT);
	probe_cache_file_name(f->c, "transport 0\nkey A", a);
	probe_cache_file_name(other, "transport 0\nkey A", b);
	assert_string_not_equal(a, b);
	probe_cache_free(other);
	/* key A's entry under key B's name */
	probe_cache_file_name(f->c, "transport 0\nkey B", b);
	pa = path_in(f, a);
	pb = path_in(f, b);
	assert_int_equal(rename(pa, pb), 0);
	assert_int_equal(probe_cache_get(f->c, "transport 0\nkey B", "wr1_1", &out), -ENOENT);
	assert_null(out.data);
	free(pa);
	free(pb);
	strbuf_release(&why);
	bpf_blob_release(&in);
}

/* A truncated file, a damaged header, length or object, or a link is a
 * miss; the next store replaces the file. */
static void test_damaged(void **state)
{
	struct fixture *f = *state;
	struct bpf_blob in = make_blob("wr1_1"), out;
	char name[32], *path;
	struct stat st;
	int fd;

	probe_cache_file_name(f->c, "k", name);
	path = path_in(f, name);
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	for (off_t cut = st.st_size - 1; cut > 0; cut -= 7) {
		assert_int_equal(truncate(path, cut), 0);
		assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), -ENOENT);
	}
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 2), 1); /* the magic */
	close(fd);
	assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	assert_int_equal(stat(path, &st), 0);
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "Z", 1, st.st_size - 9), 1); /* in the object */
	close(fd);
	assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "tail", 4), 4); /* longer than its lengths say */
	close(fd);
	assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), 0);
	bpf_blob_release(&out);
	/* a symbolic link in the entry's place is not followed */
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(probe_cache_get(f->c, "k", "wr1_1", &out), -ENOENT);
	assert_int_equal(probe_cache_put(f->c, "k", &in), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	free(path);
	bpf_blob_release(&in);
}

/* A directory others may write to, another user's, or a link to one is
 * not used; a missing one is made, 0700. */
static void test_unsafe_dir(void **state)
{
	struct fixture *f = *state;
	struct strbuf why = STRBUF_INIT;
	struct probe_cache *c = NULL;
	char *sub = path_in(f, "a/b/probes"), *link = path_in(f, "link");
	struct stat st;

	assert_int_equal(probe_cache_open(sub, build_a, sizeof(build_a), &c, &why), 0);
	probe_cache_free(c);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(probe_cache_open(sub, build_a, sizeof(build_a), &c, &why), -WR_EUNSAFE);
	assert_null(c);
	assert_non_null(strstr(why.buf, "others may write to it (mode 0777)"));
	assert_int_equal(chmod(sub, 0720), 0);
	assert_int_equal(probe_cache_open(sub, build_a, sizeof(build_a), &c, &why), -WR_EUNSAFE);
	assert_int_equal(chmod(sub, 0700), 0);
	assert_int_equal(symlink(sub, link), 0);
	assert_true(probe_cache_open(link, build_a, sizeof(build_a), &c, &why) < 0);
	assert_null(c);
	if (geteuid() == 0) {
		strbuf_reset(&why);
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(probe_cache_open(sub, build_a, sizeof(build_a), &c, &why), -WR_EUNSAFE);
		assert_non_null(strstr(why.buf, "belongs to uid 65534"));
	}
	assert_true(probe_cache_open("relative/dir", build_a, sizeof(build_a), &c, &why) < 0);
	unlink(link);
	rmdir(sub);
	free(sub);
	sub = path_in(f, "a/b");
	rmdir(sub);
	free(sub);
	sub = path_in(f, "a");
	rmdir(sub);
	free(sub);
	free(link);
	strbuf_release(&why);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".wpc") != NULL;
	closedir(d);
	return n;
}

/* Past DISK_CACHE_MAX_FILES, closing a cache that stored drops the least
 * recently used entries, and an entry read lately counts as used. */
static void test_prune(void **state)
{
	struct fixture *f = *state;
	struct bpf_blob in = make_blob("wr1_1"), out;
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	struct strbuf why = STRBUF_INIT;
	char key[32], name[32], *path;

	for (unsigned i = 0; i < DISK_CACHE_MAX_FILES + 10; i++) {
		snprintf(key, sizeof(key), "key %u", i);
		assert_int_equal(probe_cache_put(f->c, key, &in), 0);
		probe_cache_file_name(f->c, key, name);
		path = path_in(f, name);
		old[0].tv_sec = old[1].tv_sec = 1000 + i;
		assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
		free(path);
	}
	/* key 0 is the oldest, but read now */
	assert_int_equal(probe_cache_get(f->c, "key 0", "wr1_1", &out), 0);
	bpf_blob_release(&out);
	probe_cache_free(f->c);
	f->c = NULL;
	assert_int_equal(count_entries(f->dir), DISK_CACHE_MAX_FILES);
	assert_int_equal(probe_cache_open(f->dir, build_a, sizeof(build_a), &f->c, &why), 0);
	assert_int_equal(probe_cache_get(f->c, "key 0", "wr1_1", &out), 0);
	bpf_blob_release(&out);
	for (unsigned i = 1; i <= 10; i++) {
		snprintf(key, sizeof(key), "key %u", i);
		assert_int_equal(probe_cache_get(f->c, key, "wr1_1", &out), -ENOENT);
	}
	assert_int_equal(probe_cache_get(f->c, "key 11", "wr1_1", &out), 0);
	bpf_blob_release(&out);
	bpf_blob_release(&in);
	strbuf_release(&why);
}

/* This test program, like wraith, is linked with a build-id. */
static void test_build_id(void **state)
{
	const unsigned char *id;
	size_t len;

	(void)state;
	assert_int_equal(build_id_self(&id, &len), 0);
	assert_true(len >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_compared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
