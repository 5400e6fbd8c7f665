/* test_util.c - strbuf, diag rendering, the error table, the log, files,
 * the hash table, the clock, the configuration file's TOML subset, the
 * link-safe file writers and the x86-64 instruction decoder (checked
 * against objdump on the system's libc and libm). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/idmap.h"
#include "util/file.h"
#include "util/htab.h"
#include "util/log.h"
#include "util/safefile.h"
#include "util/strbuf.h"
#include "util/toml.h"
#include "util/x86insn.h"
#include "util/x86stack.h"
#include "util/xalloc.h"

static void test_strbuf_basic(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "hello");
	strbuf_addch(&sb, ' ');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	assert_string_equal(sb.buf, "hello 42-x");
	assert_int_equal(sb.len, 10);
	strbuf_setlen(&sb, 5);
	assert_string_equal(sb.buf, "hello");
	s = strbuf_detach(&sb);
	assert_string_equal(s, "hello");
	assert_string_equal(sb.buf, "");
	free(s);
	strbuf_release(&sb);
}

static void test_strbuf_json(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_json_str(&sb, "a\"b\\c\nd\x01");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
	/* UTF-8 passes; bytes that are not UTF-8 become \xNN: a lone 0xff, a
	 * cut sequence, an overlong '/', a surrogate, past U+10FFFF */
	strbuf_reset(&sb);
	strbuf_add_json_str(&sb, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xff|\xc3|\xe2\x82|\xc0\xaf|"
			    "\xed\xa0\x80|\xf4\x90\x80\x80|\xc3");
	assert_string_equal(sb.buf, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\\\\xff|\\\\xc3|"
			    "\\\\xe2\\\\x82|\\\\xc0\\\\xaf|\\\\xed\\\\xa0\\\\x80|"
			    "\\\\xf4\\\\x90\\\\x80\\\\x80|\\\\xc3\"");
	/* tab, DEL (taken as it is), the control bytes' \u00NN, runs between */
	strbuf_reset(&sb);
	strbuf_add_json_str(&sb, "\t\x7f ok \x1f\x1b[0m\\");
	assert_string_equal(sb.buf, "\"\\t\x7f ok \\u001f\\u001b[0m\\\\\"");
	strbuf_reset(&sb);
	strbuf_add_json_str(&sb, "");
	assert_string_equal(sb.buf, "\"\"");
	strbuf_release(&sb);
}

/* Numbers without printf: each as printf would write it. */
static void test_strbuf_numbers(void **state)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 15, 16, 255, 4096, 1234567890123ull,
				      0x7fffffffffffffffull, UINT64_MAX };
	struct strbuf sb = STRBUF_INIT;
	char want[64], got[STRBUF_U64_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		assert_int_equal(fmt_u64(got, v[i]), strlen(want));
		assert_string_equal(got, want);
		snprintf(want, sizeof(want), "%" PRIx64, v[i]);
		assert_int_equal(fmt_hex(got, v[i]), strlen(want));
		assert_string_equal(got, want);
		strbuf_reset(&sb);
		strbuf_add_u64(&sb, v[i]);
		strbuf_addch(&sb, ' ');
		strbuf_add_hex(&sb, v[i]);
		snprintf(want, sizeof(want), "%" PRIu64 " 0x%" PRIx64, v[i], v[i]);
		assert_string_equal(sb.buf, want);
	}
	strbuf_release(&sb);
}

/* Each UTF-8 length at both of its ends. */
static void test_strbuf_utf8(void **state)
{
	static const struct {
		uint32_t cp;
		const char *want;
	} t[] = {
		{ 0x24, "$" }, { 0x7f, "\x7f" }, { 0x80, "\xc2\x80" }, { 0xe9, "\xc3\xa9" },
		{ 0x7ff, "\xdf\xbf" }, { 0x800, "\xe0\xa0\x80" }, { 0x20ac, "\xe2\x82\xac" },
		{ 0xffff, "\xef\xbf\xbf" }, { 0x10000, "\xf0\x90\x80\x80" },
		{ 0x1f600, "\xf0\x9f\x98\x80" }, { 0x10ffff, "\xf4\x8f\xbf\xbf" },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		strbuf_reset(&sb);
		strbuf_add_utf8(&sb, t[i].cp);
		assert_string_equal(sb.buf, t[i].want);
	}
	strbuf_release(&sb);
}

static void test_diag_render(void **state)
{
	struct diag d = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const char *src = "trace main {\n\tprint \"x\" 1;\n}\n";

	(void)state;
	diag_set(&d, (struct src_loc){ .line = 2, .col = 12, .len = 1 }, "separate arguments with ','",
		 "expected ';' or ',' after %s", "the format string");
	diag_render(&d, "t.ws", src, &sb);
	assert_string_equal(sb.buf,
			    "t.ws:2:12: error: expected ';' or ',' after the format string\n"
			    "    \tprint \"x\" 1;\n"
			    "    \t          ^\n"
			    "hint: separate arguments with ','\n");
	diag_release(&d);
	strbuf_release(&sb);
}

/* A 1 MB line: the part around the caret, "..." for what is left out. */
static void test_diag_long_line(void **state)
{
	struct diag d = { 0 };
	struct strbuf src = STRBUF_INIT, sb = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	/* 60 bytes before the caret, 160 in all, the caret run cut to them */
	strbuf_addstr(&want, "big.ws:1:500001: error: bad\n    ...");
	strbuf_addchars(&want, 'x', 60);
	strbuf_addch(&want, '@');
	strbuf_addchars(&want, 'x', 99);
	strbuf_addstr(&want, "...\n       ");
	strbuf_addchars(&want, ' ', 60);
	strbuf_addch(&want, '^');
	strbuf_addchars(&want, '~', 99);
	strbuf_addch(&want, '\n');
	strbuf_addchars(&src, 'x', 500000);
	strbuf_addch(&src, '@');
	strbuf_addchars(&src, 'x', 500000);
	diag_set(&d, (struct src_loc){ .line = 1, .col = 500001, .len = 400000 }, NULL, "bad");
	diag_render(&d, "big.ws", src.buf, &sb);
	assert_string_equal(sb.buf, want.buf);
	strbuf_reset(&sb);
	/* at the start of the line: nothing cut on the left */
	d.loc = (struct src_loc){ .line = 1, .col = 2, .len = 1 };
	diag_render(&d, "big.ws", src.buf, &sb);
	assert_true(sb.len < 400);
	assert_non_null(strstr(sb.buf, "\n    xxxxx"));
	assert_non_null(strstr(sb.buf, "\n     ^\n"));
	diag_release(&d);
	strbuf_release(&src);
	strbuf_release(&sb);
	strbuf_release(&want);
}

static void test_diag_no_location(void **state)
{
	struct diag d = { 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	diag_set(&d, (struct src_loc){ 0 }, NULL, "nothing to trace");
	diag_render(&d, NULL, NULL, &sb);
	assert_string_equal(sb.buf, "<script>: error: nothing to trace\n");
	diag_release(&d);
	strbuf_release(&sb);
}

static void test_error_table(void **state)
{
	(void)state;
	assert_string_equal(wr_strerror(-WR_ESYNTAX), "script syntax error");
	assert_string_equal(wr_strerror(-WR_EUNSUPPORTED), "not supported");
	assert_string_equal(wr_strerror(-2), "No such file or directory");
	assert_string_equal(wr_strerror(0), "success");
	assert_string_equal(wr_strerror(-524), "not supported by the kernel");
	assert_null(strstr(wr_strerror(-600), "600"));
}

/* ---- log deferral: a helper thread's messages reach the sink only when
 * the owning thread replays them, in order, with their levels ---- */

struct captured {
	char text[8][64];
	enum wr_log_level level[8];
	int n;
};

static void capture_sink(enum wr_log_level level, const char *msg, void *ctx)
{
	struct captured *c = ctx;

	if (c->n < 8) {
		snprintf(c->text[c->n], sizeof(c->text[0]), "%s", msg);
		c->level[c->n++] = level;
	}
}

static void *log_from_thread(void *arg)
{
	wr_log_defer(arg);
	wr_error("first %d", 1);
	wr_debug("second");
	wr_warn("third\n");
	wr_log_defer(NULL);
	return NULL;
}

static void test_log_deferred(void **state)
{
	struct captured c = { 0 };
	struct wr_log_deferred d = { 0 };
	pthread_t t;

	(void)state;
	wr_log_set_sink(capture_sink, &c);
	wr_log_set_level(WR_LOG_DEBUG);
	assert_int_equal(pthread_create(&t, NULL, log_from_thread, &d), 0);
	pthread_join(t, NULL);
	assert_int_equal(c.n, 0);
	assert_int_equal(d.n, 3);
	wr_info("direct");
	assert_int_equal(c.n, 1);
	wr_log_replay(&d);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.text[1], "first 1");
	assert_int_equal(c.level[1], WR_LOG_ERROR);
	assert_string_equal(c.text[2], "second");
	assert_int_equal(c.level[2], WR_LOG_DEBUG);
	assert_string_equal(c.text[3], "third");
	assert_int_equal(d.n, 0);
	assert_null(d.v);
	wr_log_replay(&d); /* empty: a no-op */
	assert_int_equal(c.n, 4);
	wr_log_set_sink(NULL, NULL);
	wr_log_set_level(WR_LOG_WARN);
}

/* Files are read to their end whatever their size; a missing one says so. */
static void test_file_read(void **state)
{
	char path[] = "/tmp/wr-test-file-XXXXXX";
	char *want = xmalloc(20001), *got = NULL;
	int fd = mkstemp(path);
	size_t len = 0;

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < 20000; i++)
		want[i] = (char)('a' + i % 26);
	want[20000] = '\0';
	assert_int_equal(write(fd, want, 20000), 20000);
	close(fd);
	assert_int_equal(file_read(path, &got, &len), 0);
	assert_string_equal(got, want);
	assert_int_equal(len, 20000);
	free(got);
	unlink(path);
	assert_int_equal(file_read(path, &got, NULL), -ENOENT);
	assert_null(got);
	free(want);
}

/* /proc files report size 0 and are read all the same. */
static void test_file_read_proc(void **state)
{
	char *text = NULL;

	(void)state;
	assert_int_equal(file_read("/proc/self/status", &text, NULL), 0);
	assert_non_null(strstr(text, "Name:"));
	free(text);
}

/* Every key inserted is found again, across growth, and only those. */
static void test_htab(void **state)
{
	static char keys[5000][16];
	struct htab t = { 0 };
	struct htab_slot *s;

	(void)state;
	assert_null(htab_get(&t, "x", 1, false));
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(keys[i], sizeof(keys[i]), "key-%d", i);

		s = htab_get(&t, keys[i], (size_t)n, true);
		assert_null(s->key);
		s->key = keys[i];
		s->val = (uint32_t)i;
	}
	assert_int_equal(t.n, 5000);
	for (int i = 0; i < 5000; i++) {
		s = htab_get(&t, keys[i], strlen(keys[i]), true);
		assert_ptr_equal(s->key, keys[i]);
		assert_int_equal(s->val, i);
	}
	assert_int_equal(t.n, 5000);
	assert_null(htab_get(&t, "key-5000", 8, false));
	assert_null(htab_get(&t, "key-1", 4, false)); /* a prefix is another key */
	htab_release(&t);
	assert_null(htab_get(&t, "key-1", 5, false));
}

/* The clock moves forward. */
static void test_clock(void **state)
{
	double a = now_seconds(), b = now_seconds();

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a);
}

/* ---- toml ---- */

static void test_toml_accepts(void **state)
{
	const char *text =
		"\xef\xbb\xbf# wraith\n"
		"top = 1\n"
		"[ebpf]\n"
		"backtrace_depth = 4   # frames\n"
		"big = 0x7fff_ffff\n"
		"neg = -9_223_372_036_854_775_808\n"
		"bits = 0b101\n"
		"\n"
		"[dwarf . debuginfod]\r\n"
		"enabled = \"on\"\n"
		"'cache dir' = 'C:\\raw'\n"
		"urls = [\n"
		"  \"http://a/\",  # first\n"
		"  \"\\u00e9\\t\",\n"
		"]\n"
		"ratios = [4, 3, 3]\n"
		"empty = []\n"
		"on = true\n"
		"a.b = false\n";
	struct toml_doc doc = { 0 };
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(toml_parse(text, &doc, &d), 0);
	assert_int_equal(doc.n, 14);
	assert_string_equal(doc.v[0].table, "");
	assert_string_equal(doc.v[0].key, "top");
	assert_null(doc.v[1].key);
	assert_string_equal(doc.v[1].table, "ebpf");
	assert_int_equal(doc.v[2].value.i, 4);
	assert_int_equal(doc.v[2].loc.line, 4);
	assert_int_equal(doc.v[2].value.loc.col, 19);
	assert_int_equal(doc.v[3].value.i, 0x7fffffff);
	assert_true(doc.v[4].value.i == INT64_MIN);
	assert_int_equal(doc.v[5].value.i, 5);
	assert_string_equal(doc.v[6].table, "dwarf.debuginfod");
	assert_string_equal(doc.v[7].value.str, "on");
	assert_string_equal(doc.v[8].key, "cache dir");
	assert_string_equal(doc.v[8].value.str, "C:\\raw");
	assert_int_equal(doc.v[9].value.type, TOML_ARRAY);
	assert_int_equal(doc.v[9].value.n, 2);
	assert_string_equal(doc.v[9].value.items[0].str, "http://a/");
	assert_string_equal(doc.v[9].value.items[1].str, "\xc3\xa9\t");
	assert_string_equal(toml_value_kind(&doc.v[9].value), "an array of strings");
	assert_string_equal(toml_value_kind(&doc.v[10].value), "an array of integers");
	assert_string_equal(toml_value_kind(&doc.v[11].value), "an empty array");
	assert_true(doc.v[12].value.b);
	assert_string_equal(doc.v[13].key, "a.b");
	assert_false(doc.v[13].value.b);
	toml_doc_release(&doc);
	diag_release(&d);
}

/* Each rejected construct: the rendered error, with line, column and caret. */
static void test_toml_rejects(void **state)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "[ebpf]\nbacktrace_depth = 2.5\n",
		  "c:2:19: error: floating-point values are not supported in wraith's configuration\n"
		  "    backtrace_depth = 2.5\n"
		  "                      ^~~\n"
		  "hint: use an integer\n" },
		{ "when = 1979-05-27\n",
		  "c:1:8: error: dates and times are not supported in wraith's configuration\n"
		  "    when = 1979-05-27\n"
		  "           ^~~~~~~~~~\n"
		  "hint: write it as a string\n" },
		{ "t = { a = 1 }\n",
		  "c:1:5: error: inline tables are not supported in wraith's configuration\n"
		  "    t = { a = 1 }\n"
		  "        ^\n"
		  "hint: write each key under a [table] header instead\n" },
		{ "[[x]]\n", "c:1:1: error: arrays of tables ([[...]]) are not supported in wraith's "
		  "configuration\n    [[x]]\n    ^~\n" },
		{ "s = \"\"\"x\"\"\"\n", "c:1:5: error: multi-line strings are not supported in "
		  "wraith's configuration\n    s = \"\"\"x\"\"\"\n        ^~~\nhint: write the value on "
		  "one line\n" },
		{ "a = [1, \"x\"]\n", "c:1:9: error: this item's type differs from the array's first "
		  "item\n    a = [1, \"x\"]\n            ^~~\nhint: an array holds strings only or "
		  "integers only\n" },
		{ "a = [[1]]\n", "c:1:6: error: nested arrays are not supported in wraith's "
		  "configuration\n    a = [[1]]\n         ^~~\n" },
		{ "a = 1\na = 2\n", "c:2:1: error: this key is already set in this table\n    a = 2\n"
		  "    ^\n" },
		{ "[t]\n[t]\n", "c:2:2: error: table [t] was already defined on line 1\n    [t]\n"
		  "     ^\nhint: put all its keys under one header\n" },
		{ "a = 1 2\n", "c:1:7: error: unexpected text after the end of the line's content\n"
		  "    a = 1 2\n          ^\nhint: one key = value or [table] per line\n" },
		{ "a = \"x\n", "c:1:5: error: this string is not closed on its line\n    a = \"x\n"
		  "        ^\n" },
		{ "a = \"\\q\"\n", "c:1:6: error: unknown escape in a string\n    a = \"\\q\"\n"
		  "         ^~\nhint: escapes are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX\n" },
		{ "a = 007\n", "c:1:5: error: leading zeros are not allowed in an integer\n"
		  "    a = 007\n        ^~~\nhint: write 0o17 for an octal number\n" },
		{ "a = 1__0\n", "c:1:6: error: an underscore must stand between two digits\n"
		  "    a = 1__0\n         ^\n" },
		{ "a = 99999999999999999999\n", "c:1:5: error: this integer does not fit in 64 bits\n"
		  "    a = 99999999999999999999\n        ^~~~~~~~~~~~~~~~~~~~\n" },
		{ "a = yes\n", "c:1:5: error: expected a value after '='\n    a = yes\n        ^~~\n"
		  "hint: a value is a number, a \"string\", true, false or [an, array]\n" },
		{ "a 1\n", "c:1:3: error: expected '=' after the key\n    a 1\n      ^\n"
		  "hint: write key = value\n" },
		{ "a = [1,\n", "c:1:5: error: this array is not closed\n    a = [1,\n        ^\n"
		  "hint: close it with ']'\n" },
		{ "a = [1 2]\n", "c:1:8: error: expected ',' or ']' in the array\n    a = [1 2]\n"
		  "           ^\n" },
		{ "[ebpf\n", "c:1:6: error: expected ']' to close the table header\n    [ebpf\n"
		  "         ^\n" },
		{ "a = true # ok\nb = nan\n", "c:2:5: error: floating-point values are not supported "
		  "in wraith's configuration\n    b = nan\n        ^~~\nhint: use an integer\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct toml_doc doc = { 0 };
		struct diag d = { 0 };
		struct strbuf out = STRBUF_INIT;

		assert_int_equal(toml_parse(cases[i].text, &doc, &d), -EINVAL);
		assert_int_equal(doc.n, 0);
		diag_render(&d, "c", cases[i].text, &out);
		if (strcmp(out.buf, cases[i].want))
			print_error("case %zu:\n%s", i, out.buf);
		assert_string_equal(out.buf, cases[i].want);
		strbuf_release(&out);
		diag_release(&d);
	}
}

/* ---- safefile: root never writes through a planted link ---- */

static char *scratch_dir(void)
{
	char tmpl[] = "/tmp/wraith-safefile-XXXXXX";
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	return xstrdup(dir);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void remove_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_safefile_symlink(void **state)
{
	char *dir = scratch_dir(), *victim = xasprintf("%s/victim", dir);
	char *link = xasprintf("%s/out", dir);
	struct strbuf why = STRBUF_INIT;
	struct stat st;

	(void)state;
	write_text(victim, "precious\n");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(safe_file_open_append(link, 0600, 0, &why), -WR_EUNSAFE);
	assert_string_equal(why.buf, "it is a symbolic link");
	strbuf_reset(&why);
	assert_int_equal(safe_file_replace(link, "x\n", 2, 0600, 0, &why), -WR_EUNSAFE);
	assert_string_equal(why.buf, "it is a symbolic link");
	assert_string_equal(read_text(victim), "precious\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* forced: the ordinary open, through the link */
	assert_int_equal(safe_file_replace(link, "x\n", 2, 0600, SAFE_FILE_FORCE, NULL), 0);
	assert_string_equal(read_text(victim), "x\n");
	strbuf_release(&why);
	remove_tree(dir);
	free(victim);
	free(link);
	free(dir);
}

static void test_safefile_hardlink(void **state)
{
	char *dir = scratch_dir(), *victim = xasprintf("%s/victim", dir);
	char *other = xasprintf("%s/out", dir);
	struct strbuf why = STRBUF_INIT;

	(void)state;
	write_text(victim, "precious\n");
	assert_int_equal(link(victim, other), 0);
	assert_int_equal(safe_file_open_append(other, 0600, 0, &why), -WR_EUNSAFE);
	assert_string_equal(why.buf, "it has 2 hard links: another name may be a file root must not "
			    "touch");
	assert_int_equal(safe_file_replace(other, "x\n", 2, 0600, 0, NULL), -WR_EUNSAFE);
	assert_string_equal(read_text(victim), "precious\n");
	strbuf_release(&why);
	remove_tree(dir);
	free(victim);
	free(other);
	free(dir);
}

static void test_safefile_create_and_replace(void **state)
{
	char *dir = scratch_dir(), *path = xasprintf("%s/log", dir);
	struct stat st;
	int fd;

	(void)state;
	fd = safe_file_open_append(path, 0600, 0, NULL);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a\n", 2), 2);
	close(fd);
	fd = safe_file_open_append(path, 0600, 0, NULL);
	assert_int_equal(write(fd, "b\n", 2), 2);
	close(fd);
	assert_string_equal(read_text(path), "a\nb\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* replacing keeps the old mode and leaves no temporary file */
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(safe_file_replace(path, "new\n", 4, 0600, 0, NULL), 0);
	assert_string_equal(read_text(path), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a directory, a FIFO: not files */
	assert_int_equal(safe_file_open_append("/tmp/", 0600, 0, NULL), -WR_EUNSAFE);
	free(path);
	free(dir);
}

/* Needs root: a file and a directory of another user (nobody). */
static void test_safefile_other_user(void **state)
{
	char *dir = scratch_dir(), *sub = xasprintf("%s/theirs", dir);
	char *in_sub = xasprintf("%s/log", sub), *file = xasprintf("%s/their-file", dir);
	struct strbuf why = STRBUF_INIT;

	(void)state;
	if (geteuid() != 0) {
		remove_tree(dir);
		free(dir), free(sub), free(in_sub), free(file);
		skip();
	}
	unsetenv("SUDO_UID");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chown(sub, 65534, 65534), 0);
	assert_int_equal(safe_file_open_append(in_sub, 0600, 0, &why), -WR_EUNSAFE);
	assert_non_null(strstr(why.buf, "belongs to uid 65534, another user"));
	assert_int_equal(access(in_sub, F_OK), -1);
	write_text(file, "theirs\n");
	assert_int_equal(chown(file, 65534, 65534), 0);
	strbuf_reset(&why);
	assert_int_equal(safe_file_replace(file, "x", 1, 0600, 0, &why), -WR_EUNSAFE);
	assert_string_equal(why.buf, "it belongs to uid 65534, another user");
	assert_string_equal(read_text(file), "theirs\n");
	/* the process-wide force (--unsafe-paths) */
	safe_file_set_force(true);
	assert_int_equal(safe_file_replace(file, "x", 1, 0600, 0, NULL), 0);
	safe_file_set_force(false);
	assert_string_equal(read_text(file), "x");
	strbuf_release(&why);
	remove_tree(dir);
	free(dir), free(sub), free(in_sub), free(file);
}

/* idmap: values stay put while the table grows; absent keys read 0;
 * key 0 is a key. */
static void test_idmap(void **state)
{
	struct idmap m = { 0 };

	(void)state;
	assert_int_equal(idmap_get(&m, 5), 0);
	for (uint64_t k = 1; k <= 1000; k++)
		assert_int_equal(idmap_put(&m, k * 0x10001, k + 7), k + 7);
	assert_int_equal(idmap_put(&m, 0x10001, 99), 8); /* present: keeps its value */
	for (uint64_t k = 1; k <= 1000; k++)
		assert_int_equal(idmap_get(&m, k * 0x10001), k + 7);
	assert_int_equal(idmap_get(&m, 3), 0);
	assert_int_equal(idmap_get(&m, 0), 0);
	assert_int_equal(idmap_put(&m, 0, 42), 42); /* 0 is a key like any other */
	assert_int_equal(idmap_get(&m, 0), 42);
	assert_int_equal(m.n, 1001);
	assert_true(m.cap >= 2002);
	idmap_release(&m);
	assert_int_equal(idmap_get(&m, 0x10001), 0);
}

static size_t hex_bytes(const char *text, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;
	int used;

	while (n < max && sscanf(text, " %2x%n", &v, &used) == 1) {
		out[n++] = (uint8_t)v;
		text += used;
	}
	return n;
}

static void test_x86insn_fields(void **state)
{
	static const struct {
		const char *bytes;
		enum x86_encoding enc;
		uint8_t map, opcode;
		bool nop;
	} cases[] = {
		{ "66 66 66 66 2e 0f 1f 84 00 00 00 00 00", X86_LEGACY, X86_MAP_0F, 0x1f, true },
		{ "f0 48 0f b1 0e", X86_LEGACY, X86_MAP_0F, 0xb1, false },
		{ "48 b8 01 02 03 04 05 06 07 08", X86_LEGACY, X86_MAP_ONE, 0xb8, false },
		{ "66 b8 01 02", X86_LEGACY, X86_MAP_ONE, 0xb8, false },
		{ "a1 01 02 03 04 05 06 07 08", X86_LEGACY, X86_MAP_ONE, 0xa1, false },
		{ "67 a1 01 02 03 04", X86_LEGACY, X86_MAP_ONE, 0xa1, false },
		{ "f6 c3 01", X86_LEGACY, X86_MAP_ONE, 0xf6, false },
		{ "f7 d8", X86_LEGACY, X86_MAP_ONE, 0xf7, false },
		{ "c8 10 00 01", X86_LEGACY, X86_MAP_ONE, 0xc8, false },
		{ "42 8b 04 a5 00 00 00 00", X86_LEGACY, X86_MAP_ONE, 0x8b, false },
		{ "66 0f 3a 0f c1 08", X86_LEGACY, X86_MAP_0F3A, 0x0f, false },
		{ "66 0f 38 00 c1", X86_LEGACY, X86_MAP_0F38, 0x00, false },
		{ "c5 f8 77", X86_VEX, 1, 0x77, false },
		{ "c4 e3 7d 18 c1 01", X86_VEX, 3, 0x18, false },
		{ "62 f1 fe 48 6f 44 24 01", X86_EVEX, 1, 0x6f, false },
		{ "8f e8 78 c0 c1 05", X86_XOP, 8, 0xc0, false },
		{ "8f c0", X86_LEGACY, X86_MAP_ONE, 0x8f, false },
		{ "f3 0f 1e fa", X86_LEGACY, X86_MAP_0F, 0x1e, true },
		{ "f3 90", X86_LEGACY, X86_MAP_ONE, 0x90, true },
		{ "41 90", X86_LEGACY, X86_MAP_ONE, 0x90, false },
		{ "f0 0f 1f 00", X86_LEGACY, X86_MAP_0F, 0x1f, false },
	};
	struct x86insn in;
	uint8_t code[16];
	uint64_t to;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = hex_bytes(cases[i].bytes, code, sizeof(code));

		if (x86insn_decode(code, n, &in) || in.len != n || in.enc != cases[i].enc ||
		    in.map != cases[i].map || in.opcode != cases[i].opcode ||
		    x86insn_is_nop(&in) != cases[i].nop)
			fail_msg("%s: len %u enc %d map %u opcode %02x nop %d", cases[i].bytes, in.len,
				 in.enc, in.map, in.opcode, x86insn_is_nop(&in));
		/* one byte short: the decoder must ask for it */
		assert_int_equal(x86insn_decode(code, n - 1, &in), -ENODATA);
	}
	assert_int_equal(x86insn_decode((const uint8_t *)"\x06", 1, &in), 0);
	assert_true(in.invalid);
	assert_int_equal(x86insn_decode((const uint8_t *)"\x75\xfe", 2, &in), 0);
	assert_true(x86insn_branch_target(&in, 0x1000, &to));
	assert_int_equal(to, 0x1000);
	assert_int_equal(x86insn_decode((const uint8_t *)"\x0f\x85\x10\x00\x00\x00", 6, &in), 0);
	assert_true(x86insn_branch_target(&in, 0x1000, &to));
	assert_int_equal(to, 0x1016);
	assert_int_equal(x86insn_decode((const uint8_t *)"\xff\xe0", 2, &in), 0);
	assert_true(x86insn_is_indirect_jump(&in));
	assert_false(x86insn_branch_target(&in, 0x1000, &to));
	assert_int_equal(x86insn_decode((const uint8_t *)"\x62\xf4\x7c\x08\x01\xc0", 6, &in),
			 -EINVAL); /* EVEX map 4 (APX) is not known here */
}

static void test_x86insn_gpr_writes(void **state)
{
	static const struct {
		const char *bytes;
		int mask; /* -1: not known */
	} cases[] = {
		{ "55", 1 << 4 },                          /* push %rbp */
		{ "41 57", 1 << 4 },                       /* push %r15 */
		{ "48 89 e5", 1 << 5 },                    /* mov %rsp,%rbp */
		{ "48 83 ec 28", 1 << 4 },                 /* sub $0x28,%rsp */
		{ "48 81 ec 00 01 00 00", 1 << 4 },        /* sub $0x100,%rsp */
		{ "48 89 fb", 1 << 3 },                    /* mov %rdi,%rbx */
		{ "64 48 8b 04 25 28 00 00 00", 1 << 0 },  /* mov %fs:0x28,%rax */
		{ "48 89 44 24 18", 0 },                   /* mov %rax,0x18(%rsp) */
		{ "31 c0", 1 << 0 },                       /* xor %eax,%eax */
		{ "b4 01", 1 << 0 | 1 << 4 },              /* mov $1,%ah: part of rax */
		{ "88 e0", 1 << 0 },                       /* mov %ah,%al */
		{ "41 b0 01", 1 << 8 },                    /* mov $1,%r8b */
		{ "f3 0f 1e fa", 0 },                      /* endbr64 */
		{ "0f 29 44 24 10", 0 },                   /* movaps %xmm0,0x10(%rsp) */
		{ "48 f7 e1", 1 << 0 | 1 << 2 },           /* mul %rcx */
		{ "48 f7 d8", 1 << 0 },                    /* neg %rax */
		{ "4c 8d 64 24 08", 1 << 12 },             /* lea 0x8(%rsp),%r12 */
		{ "48 39 fe", 0 },                         /* cmp %rdi,%rsi */
		{ "83 7f 08 00", 0 },                      /* cmpl $0,0x8(%rdi) */
		{ "44 0f b6 c0", 1 << 8 },                 /* movzbl %al,%r8d */
		{ "0f 94 c4", 1 << 0 | 1 << 4 },           /* sete %ah */
		{ "49 87 c4", 1 << 0 | 1 << 12 },          /* xchg %rax,%r12 */
		{ "ff f3", 1 << 4 },                       /* push %rbx */
		{ "e8 00 00 00 00", -1 },                  /* call */
		{ "eb 00", -1 },                           /* jmp */
		{ "5d", -1 },                              /* pop %rbp */
		{ "c9", -1 },                              /* leave */
		{ "0f 28 c1", -1 },                        /* movaps %xmm1,%xmm0 */
		{ "66 48 0f 7e c0", -1 },                  /* movq %xmm0,%rax */
		{ "f3 a4", -1 },                           /* rep movsb */
		{ "c5 f8 77", -1 },                        /* vzeroupper */
		{ "f0 48 0f c1 07", -1 },                  /* lock xadd */
		{ "c7 f8 00 00 00 00", -1 },               /* xbegin */
		{ "0f 05", -1 },                           /* syscall */
	};
	struct x86insn in;
	uint8_t code[16];
	uint16_t mask;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = hex_bytes(cases[i].bytes, code, sizeof(code));
		bool known;

		assert_int_equal(x86insn_decode(code, n, &in), 0);
		known = x86insn_gpr_writes(&in, &mask);
		if (known != (cases[i].mask >= 0) || (known && mask != cases[i].mask))
			fail_msg("%s: known %d mask %#x, want %#x", cases[i].bytes, known, known ? mask : 0,
				 (unsigned)cases[i].mask);
	}
}

/* What each form does to rsp and rbp: the ones a compiler emits, and
 * those that must not pass for them. */
static void test_x86stack_classify(void **state)
{
	static const struct {
		const char *bytes, *what;
		enum x86stack_kind kind;
		int64_t delta;
		enum x86stack_flow flow;
	} cases[] = {
		{ "55", "push %rbp", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "41 57", "push %r15", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "66 55", "push %bp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "6a 05", "push $5", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "68 00 01 00 00", "push $0x100", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "ff 35 00 00 00 00", "push 0(%rip)", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "9c", "pushf", X86STACK_RSP_ADD, -8, X86FLOW_NEXT },
		{ "5b", "pop %rbx", X86STACK_RSP_ADD, 8, X86FLOW_NEXT },
		{ "41 5c", "pop %r12", X86STACK_RSP_ADD, 8, X86FLOW_NEXT },
		{ "5c", "pop %rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "5d", "pop %rbp", X86STACK_POP_RBP, 8, X86FLOW_NEXT },
		{ "41 5d", "pop %r13", X86STACK_RSP_ADD, 8, X86FLOW_NEXT },
		{ "8f 00", "pop (%rax)", X86STACK_RSP_ADD, 8, X86FLOW_NEXT },
		{ "8f c5", "pop %rbp (8f)", X86STACK_POP_RBP, 8, X86FLOW_NEXT },
		{ "48 83 ec 10", "sub $0x10,%rsp", X86STACK_RSP_ADD, -16, X86FLOW_NEXT },
		{ "48 83 c4 f0", "add $-0x10,%rsp", X86STACK_RSP_ADD, -16, X86FLOW_NEXT },
		{ "48 81 ec 00 10 00 00", "sub $0x1000,%rsp", X86STACK_RSP_ADD, -4096, X86FLOW_NEXT },
		{ "83 ec 10", "sub $0x10,%esp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 83 e4 f0", "and $-16,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 29 c4", "sub %rax,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 2b e0", "sub %rax,%rsp (2b)", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 29 e0", "sub %rsp,%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 39 e0", "cmp %rsp,%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 83 fc 10", "cmp $0x10,%rsp", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 89 e5", "mov %rsp,%rbp", X86STACK_RBP_FROM_RSP, 0, X86FLOW_NEXT },
		{ "48 8b ec", "mov %rsp,%rbp (8b)", X86STACK_RBP_FROM_RSP, 0, X86FLOW_NEXT },
		{ "89 e5", "mov %esp,%ebp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "48 89 ec", "mov %rbp,%rsp", X86STACK_RSP_FROM_RBP, 0, X86FLOW_NEXT },
		{ "48 89 c4", "mov %rax,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 89 c5", "mov %rax,%rbp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "48 89 e0", "mov %rsp,%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 89 65 f8", "mov %rsp,-8(%rbp)", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 8b 45 f8", "mov -8(%rbp),%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 8b 65 f8", "mov -8(%rbp),%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "49 89 e4", "mov %rsp,%r12", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "4c 89 e4", "mov %r12,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 8d 64 24 f0", "lea -16(%rsp),%rsp", X86STACK_RSP_ADD, -16, X86FLOW_NEXT },
		{ "48 8d 65 d8", "lea -0x28(%rbp),%rsp", X86STACK_RSP_FROM_RBP, -40, X86FLOW_NEXT },
		{ "48 8d 6c 24 10", "lea 16(%rsp),%rbp", X86STACK_RBP_FROM_RSP, 16, X86FLOW_NEXT },
		{ "48 8d 24 04", "lea (%rsp,%rax),%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 8d 45 f0", "lea -16(%rbp),%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 8d 6d 10", "lea 16(%rbp),%rbp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "c9", "leave", X86STACK_LEAVE, 0, X86FLOW_NEXT },
		{ "c8 10 00 00", "enter", X86STACK_UNKNOWN, 0, X86FLOW_END },
		{ "c3", "ret", X86STACK_NONE, 0, X86FLOW_END },
		{ "f3 c3", "rep ret", X86STACK_NONE, 0, X86FLOW_END },
		{ "e8 00 00 00 00", "call", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "ff d0", "call *%rax", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "ff e0", "jmp *%rax", X86STACK_NONE, 0, X86FLOW_END },
		{ "3e ff e0", "notrack jmp *%rax", X86STACK_NONE, 0, X86FLOW_END },
		{ "e9 00 00 00 00", "jmp", X86STACK_NONE, 0, X86FLOW_JUMP },
		{ "74 02", "je", X86STACK_NONE, 0, X86FLOW_BRANCH },
		{ "0f 84 00 00 00 00", "je rel32", X86STACK_NONE, 0, X86FLOW_BRANCH },
		{ "0f 0b", "ud2", X86STACK_NONE, 0, X86FLOW_END },
		{ "48 87 e0", "xchg %rsp,%rax", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 94", "xchg %rax,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 bc 00 00 00 00 00 00 00 00", "movabs $0,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "bd 01 00 00 00", "mov $1,%ebp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "31 ed", "xor %ebp,%ebp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "48 ff c4", "inc %rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 f7 dc", "neg %rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 f7 c4 0f 00 00 00", "test $0xf,%rsp", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "48 c1 ec 04", "shr $4,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 0f 44 e0", "cmove %rax,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "48 0f cc", "bswap %rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "40 0f 94 c4", "sete %spl", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "66 48 0f 7e c4", "movq %xmm0,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "66 48 0f 6e c4", "movq %rsp,%xmm0", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "0f 28 ec", "movaps %xmm4,%xmm5", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "f3 48 0f ae c4", "rdfsbase %rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "0f ae e8", "lfence", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "c4 e2 f8 f3 cc", "blsr %rsp,%rax", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "c4 e2 f8 f2 e0", "andn %rax,%rax,%rsp", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "c5 f9 7e e5", "vmovd %xmm4,%ebp", X86STACK_RBP_LOST, 0, X86FLOW_NEXT },
		{ "c5 fd 6f e5", "vmovdqa %ymm5,%ymm4", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "0f a0", "push %fs", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "d9 e4", "ftst (x87, rm 4)", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "0f 05", "syscall (clone)", X86STACK_UNKNOWN, 0, X86FLOW_NEXT },
		{ "f3 0f 1e fa", "endbr64", X86STACK_NONE, 0, X86FLOW_NEXT },
		{ "cc", "int3", X86STACK_NONE, 0, X86FLOW_END },
	};
	struct x86insn in;
	struct x86stack_effect e;
	uint8_t code[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = hex_bytes(cases[i].bytes, code, sizeof(code));
		bool delta = cases[i].kind != X86STACK_NONE && cases[i].kind != X86STACK_UNKNOWN &&
			     cases[i].kind != X86STACK_RBP_LOST && cases[i].kind != X86STACK_LEAVE;

		assert_int_equal(x86insn_decode(code, n, &in), 0);
		assert_int_equal(in.len, n);
		x86stack_classify(&in, code, &e);
		if (e.kind != cases[i].kind || e.flow != cases[i].flow || (delta && e.delta != cases[i].delta))
			fail_msg("%s (%s): kind %d delta %" PRId64 " flow %d", cases[i].what, cases[i].bytes, e.kind,
				 e.delta, e.flow);
	}
}

/* Every instruction objdump shows in @path has the length objdump gives
 * it (but fwait, which objdump prints joined to the x87 instruction
 * after it). */
static void check_against_objdump(const char *path)
{
	char cmd[256], line[1024];
	size_t seen = 0, wrong = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -w '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		uint8_t code[32];
		struct x86insn in;
		size_t n;

		if (line[0] != ' ' || !t2 || strstr(t2, "(bad)") || strstr(t2, ".byte"))
			continue;
		*t2 = '\0';
		n = hex_bytes(t1 + 1, code, sizeof(code));
		if (n == 0 || (code[0] == 0x9b && n > 1) || ((code[0] & 0xf0) == 0x40 && n == 1))
			continue;
		seen++;
		if (x86insn_decode(code, n, &in) != 0 || in.len != n) {
			if (wrong++ < 10)
				print_message("%s: %s decoded as %u bytes\n", path, t1 + 1, in.len);
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(seen > 10000);
	assert_int_equal(wrong, 0);
}

static void test_x86insn_objdump(void **state)
{
	(void)state;
	check_against_objdump("/lib/x86_64-linux-gnu/libc.so.6");
	check_against_objdump("/lib/x86_64-linux-gnu/libm.so.6");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strbuf_json),
		cmocka_unit_test(test_strbuf_numbers),
		cmocka_unit_test(test_strbuf_utf8),
		cmocka_unit_test(test_diag_render),
		cmocka_unit_test(test_diag_long_line),
		cmocka_unit_test(test_diag_no_location),
		cmocka_unit_test(test_error_table),
		cmocka_unit_test(test_log_deferred),
		cmocka_unit_test(test_file_read),
		cmocka_unit_test(test_file_read_proc),
		cmocka_unit_test(test_htab),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_toml_accepts),
		cmocka_unit_test(test_toml_rejects),
		cmocka_unit_test(test_safefile_symlink),
		cmocka_unit_test(test_safefile_hardlink),
		cmocka_unit_test(test_safefile_create_and_replace),
		cmocka_unit_test(test_safefile_other_user),
		cmocka_unit_test(test_idmap),
		cmocka_unit_test(test_x86insn_fields),
		cmocka_unit_test(test_x86insn_gpr_writes),
		cmocka_unit_test(test_x86stack_classify),
		cmocka_unit_test(test_x86insn_objdump),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
