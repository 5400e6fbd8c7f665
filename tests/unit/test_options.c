/* test_options.c - wraith's settings: the configuration file's keys (with
 * GhostScope's names), its located errors, the layers' precedence
 * (command line > environment > file > built-in) and the default file
 * under $XDG_CONFIG_HOME.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "frontend/options.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/wraith-options-XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Parse @argv (NULL-terminated) into @o; returns the status. */
static int parse(struct cli_options *o, const char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(o, 0, sizeof(*o));
	optind = 0; /* getopt starts over */
	return cli_options_parse(argc, (char **)argv, o);
}

static void test_config_keys(void **state)
{
	const char *text =
		"[general]\nlog_level = \"debug\"\n"
		"[script]\noutput = \"json\"\ncolor = \"never\"\nstatus = true\n"
		"output_events_per_sec = 500\nprint_elements = 0\nprint_depth = 3\n"
		"[ebpf]\nbacktrace_depth = 4\nforce_perf_event_array = true\nringbuf_size = 1048576\n"
		"perf_page_count = 64\n"
		"[dwarf]\nsearch_paths = [\"/a\", \"~/b\"]\nallow_loose_debug_match = true\n"
		"[dwarf.debuginfod]\nenabled = \"on\"\nurls = [\"http://x/\"]\ntimeout_secs = 0\n"
		"max_size_bytes = 1000\ncache_dir = \"/c\"\n"
		"[ui]\nlayout = \"Vertical\"\npanel_ratios = [4, 3, 3]\n";
	struct cli_options o = { 0 };
	struct strbuf err = STRBUF_INIT, ignored = STRBUF_INIT;
	char *home_b = xasprintf("%s/b", getenv("HOME"));

	(void)state;
	assert_int_equal(cli_options_apply_config(&o, "c.toml", text, &err, &ignored), 0);
	assert_string_equal(err.buf, "");
	assert_string_equal(ignored.buf, "ebpf.perf_page_count, ui.layout, ui.panel_ratios");
	assert_int_equal(o.log_level, 3);
	assert_int_equal(o.format, RENDER_JSON);
	assert_string_equal(o.color_mode, "never");
	assert_true(o.status);
	assert_int_equal(o.events_per_sec, 500);
	assert_int_equal(o.print_elements, 8192); /* 0: as many as the probe can read */
	assert_int_equal(o.print_depth, 3);
	assert_int_equal(o.bt_depth, 4);
	assert_int_equal(o.buffer_bytes, 1048576); /* GhostScope's ringbuf_size is --buffer-size */
	assert_int_equal(o.transport, SESSION_TRANSPORT_PERF);
	assert_int_equal(o.debug_dirs.n, 2);
	assert_string_equal(o.debug_dirs.v[0], "/a");
	assert_string_equal(o.debug_dirs.v[1], home_b);
	assert_true(o.loose_debug_match);
	assert_int_equal(o.debuginfod, CLI_DEBUGINFOD_ON);
	assert_int_equal(o.debuginfod_urls.n, 1);
	assert_string_equal(o.debuginfod_urls.v[0], "http://x/");
	assert_int_equal(o.debuginfod_timeout, 0);
	assert_int_equal(o.debuginfod_max_size, 1000);
	assert_string_equal(o.debuginfod_cache, "/c");
	free(home_b);
	cli_options_release(&o);
	strbuf_release(&err);
	strbuf_release(&ignored);
}

/* Errors of meaning (the syntax is toml's, tested in test_util). */
static void test_config_errors(void **state)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "[ebpf]\nbacktrace_dept = 4\n",
		  "c.toml:2:1: error: unknown key `backtrace_dept` in [ebpf]\n"
		  "    backtrace_dept = 4\n    ^~~~~~~~~~~~~~\n"
		  "hint: did you mean `backtrace_depth` in [ebpf]?\n" },
		{ "[ebpf]\nbacktrace_depth = \"4\"\n",
		  "c.toml:2:19: error: `backtrace_depth` takes an integer, not a string\n"
		  "    backtrace_depth = \"4\"\n                      ^~~\n" },
		{ "[ebpf]\nbacktrace_depth = 2000\n",
		  "c.toml:2:19: error: invalid `backtrace_depth`: expected 1..1024\n"
		  "    backtrace_depth = 2000\n                      ^~~~\n" },
		{ "[script]\noutput = \"xml\"\n",
		  "c.toml:2:10: error: invalid `output`: expected pretty, plain or json\n"
		  "    output = \"xml\"\n             ^~~~~\n" },
		{ "[dwarf]\nsearch_paths = \"/a\"\n",
		  "c.toml:2:16: error: `search_paths` takes an array of strings, not a string\n"
		  "    search_paths = \"/a\"\n                   ^~~~\n" },
		{ "[dwarf]\nsearch_paths = [1]\n",
		  "c.toml:2:16: error: `search_paths` takes an array of strings, not an array of "
		  "integers\n    search_paths = [1]\n                   ^~~\n" },
		{ "[tui]\n",
		  "c.toml:1:2: error: unknown section [tui]\n    [tui]\n     ^~~\n"
		  "hint: sections are [general], [script], [dwarf], [dwarf.debuginfod] and [ebpf]; "
		  "see wraith(1)\n" },
		{ "depth = 3\n",
		  "c.toml:1:1: error: unknown key `depth` in the top level\n    depth = 3\n    ^~~~~\n"
		  "hint: wraith(1) lists the keys\n" },
		{ "[dwarf.debuginfod]\nenabled = true\nenabled = false\n",
		  "c.toml:3:1: error: this key is already set in this table\n"
		  "    enabled = false\n    ^~~~~~~\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli_options o = { 0 };
		struct strbuf err = STRBUF_INIT, ignored = STRBUF_INIT;

		assert_int_not_equal(cli_options_apply_config(&o, "c.toml", cases[i].text, &err,
							      &ignored), 0);
		if (strcmp(err.buf, cases[i].want))
			print_error("case %zu:\n%s", i, err.buf);
		assert_string_equal(err.buf, cases[i].want);
		cli_options_release(&o);
		strbuf_release(&err);
		strbuf_release(&ignored);
	}
}

/* Command line > environment > file > built-in. */
static void test_precedence(void **state)
{
	char *cfg = xasprintf("%s/p.toml", dir);
	struct cli_options o;

	(void)state;
	setenv("XDG_CONFIG_HOME", dir, 1); /* no default file */
	write_file(cfg, "[ebpf]\nbacktrace_depth = 4\n[dwarf.debuginfod]\nurls = [\"http://file/\"]\n"
		   "timeout_secs = 7\n");
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", NULL }), 0);
	assert_int_equal(o.bt_depth, 0);             /* built-in */
	assert_int_equal(o.debuginfod_timeout, 5);
	assert_int_equal(o.debuginfod, CLI_DEBUGINFOD_OFF);
	cli_options_release(&o);

	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1", NULL }), 0);
	assert_int_equal(o.bt_depth, 4);             /* file */
	assert_int_equal(o.debuginfod_timeout, 7);
	assert_string_equal(o.debuginfod_urls.v[0], "http://file/");
	cli_options_release(&o);

	setenv("DEBUGINFOD_URLS", "http://env1/ http://env2/", 1);
	setenv("DEBUGINFOD_TIMEOUT", "9", 1);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1", NULL }), 0);
	assert_int_equal(o.debuginfod_urls.n, 2);    /* environment over file */
	assert_string_equal(o.debuginfod_urls.v[1], "http://env2/");
	assert_int_equal(o.debuginfod_timeout, 9);
	cli_options_release(&o);

	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1",
		"--backtrace-depth", "6", "--debuginfod-url", "http://a/", "--debuginfod-url",
		"http://b/", "--debuginfod-timeout-secs", "1", "--print-elements", "5", NULL }), 0);
	assert_int_equal(o.bt_depth, 6);             /* command line over all */
	assert_int_equal(o.print_elements, 5);
	assert_int_equal(o.print_depth, 20);         /* the default */
	assert_int_equal(o.debuginfod_urls.n, 2);
	assert_string_equal(o.debuginfod_urls.v[0], "http://a/");
	assert_string_equal(o.debuginfod_urls.v[1], "http://b/");
	assert_int_equal(o.debuginfod_timeout, 1);
	cli_options_release(&o);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("XDG_CONFIG_HOME");
	unlink(cfg);
	free(cfg);
}

/* The default file: $XDG_CONFIG_HOME/wraith/config.toml; missing is fine. */
static void test_default_file(void **state)
{
	char *sub = xasprintf("%s/wraith", dir), *cfg = xasprintf("%s/config.toml", sub);
	struct cli_options o;

	(void)state;
	setenv("XDG_CONFIG_HOME", dir, 1);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", NULL }), 0);
	assert_null(o.config_file);
	cli_options_release(&o);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file(cfg, "[script]\noutput = \"plain\"\n");
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", NULL }), 0);
	assert_int_equal(o.format, RENDER_PLAIN);
	assert_string_equal(o.config_file, cfg);
	cli_options_release(&o);
	write_file(cfg, "[script]\noutput = plain\n");
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", NULL }), 2);
	cli_options_release(&o);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", "/nonexistent/x.toml",
		"-p", "1", NULL }), 2);
	cli_options_release(&o);
	unsetenv("XDG_CONFIG_HOME");
	unlink(cfg);
	rmdir(sub);
	free(cfg);
	free(sub);
}

/* The probe cache: on by default, under $XDG_CACHE_HOME or ~/.cache but
 * for root (root's home from the password database); off by any layer;
 * its directory from each layer, a relative one from the current one. */
static void test_probe_cache(void **state)
{
	char *cfg = xasprintf("%s/pc.toml", dir), *want, cwd[4096];
	struct cli_options o;

	(void)state;
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("WRAITH_PROBE_CACHE");
	unsetenv("WRAITH_PROBE_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/xdg-cache", 1);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", NULL }), 0);
	assert_true(o.probe_cache);
	if (geteuid() == 0) {
		assert_non_null(o.probe_cache_dir);
		assert_non_null(strstr(o.probe_cache_dir, "/.cache/wraith/probes"));
		assert_null(strstr(o.probe_cache_dir, "xdg"));
	} else {
		assert_string_equal(o.probe_cache_dir, "/xdg-cache/wraith/probes");
	}
	cli_options_release(&o);
	unsetenv("XDG_CACHE_HOME");

	write_file(cfg, "[ebpf]\nprobe_cache = false\nprobe_cache_dir = \"/file\"\n");
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1", NULL }), 0);
	assert_false(o.probe_cache);
	assert_null(o.probe_cache_dir); /* off: nowhere */
	cli_options_release(&o);
	setenv("WRAITH_PROBE_CACHE", "on", 1);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1", NULL }), 0);
	assert_string_equal(o.probe_cache_dir, "/file");
	cli_options_release(&o);
	setenv("WRAITH_PROBE_CACHE_DIR", "/env", 1);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1", NULL }), 0);
	assert_string_equal(o.probe_cache_dir, "/env");
	cli_options_release(&o);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "--config", cfg, "-p", "1",
		"--probe-cache-dir", "rel/dir", NULL }), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	want = xasprintf("%s/rel/dir", cwd);
	assert_string_equal(o.probe_cache_dir, want);
	free(want);
	cli_options_release(&o);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", "--probe-cache", "off",
		NULL }), 0);
	assert_null(o.probe_cache_dir);
	cli_options_release(&o);
	assert_int_equal(parse(&o, (const char *[]){ "wraith", "-p", "1", "--probe-cache", "maybe",
		NULL }), 2);
	cli_options_release(&o);
	unsetenv("WRAITH_PROBE_CACHE");
	unsetenv("WRAITH_PROBE_CACHE_DIR");
	unsetenv("XDG_CONFIG_HOME");
	unlink(cfg);
	free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_default_file),
		cmocka_unit_test(test_probe_cache),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
