/* test_codegen.c - the code generator on a catalogue of scripts: every
 * statement, expression and placeholder kind, with and without the traced
 * program's variables, compiled through the real LLVM pipeline.  The
 * generator verifies each module before optimising it; here each result
 * must also be a BPF ELF object with the probe's program, BTF and no
 * DWARF, and no call left to a template entry point (they are all
 * inlined).  As root, every object
 * is then loaded, so the kernel's verifier accepts what the generator
 * emits; without privilege that part is skipped and says so.
 *
 * The agreement with the templates is checked too: every entry point the
 * generator's sources call is in protocol/contract.h's list with the
 * argument count of the call, and every listed one is called.
 *
 * Scripts that read variables compile against the vars-O0 and vars-O2
 * fixtures' DWARF at probe_here(), the way the session answers the
 * generator's questions (tracer/session.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "codegen/codegen.h"
#include "codegen/lower.h"
#include "dwarf/module.h"
#include "dwarf/resolve.h"
#include "dwarf/vars.h"
#include "protocol/contract.h"
#include "runtime/runtime.h"
#include "script/parser.h"
#include "script/typespec.h"
#include "tracer/casttype.h"
#include "unwind/cfi.h"
#include "util/diag.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Statements and expressions that need no program variables. */
static const char *const plain_scripts[] = {
	"trace f { print \"hello\"; }",
	"trace f { print \"pid={} tid={} at={}\", $pid, $tid, $timestamp; }",
	"trace f { print \"{:x} {:X} {:p} {:s} {} {{}}\", $pid, $tid, $pc, \"text\", true; }",
	"trace f { print $pid * 2 + 1; }",
	"trace f { print \"{}\", (($pid << 2) >> 1 ^ 5 | 3 & 1) % 7 / 2 - -$tid; }",
	"trace f { print \"{} {}\", !($pid == 0), ~$tid; }",
	"trace f { print \"{}\", $pid < 1 || $tid <= 2 && $pid > 3 || $tid >= 4 && $pid != 5; }",
	"trace f { let x = $pid % 7; if x == 3 { print \"three\"; } else if x > 3 { print \"big {}\", x; } "
	"else { print \"small\"; } }",
	"trace f { let a = 1; if a > 0 { let b = a + 1; print \"{}\", b; } $pid; }",
	"trace f { bt; }",
	"trace f { backtrace raw; bt full; bt inline; bt noinline; }",
	"trace f { if $pid > 0 { bt; print \"after\"; } }",
	"trace f { print \"a {} b\", \"lit\"; bt; bt; bt; bt; bt; bt; bt; bt; }",
	"trace f { count bt; }",
	"trace f { if $pid > 0 { count bt, $tid % 4; } print \"after\"; bt; }",
};

/* Program variables at probe_here() of the vars fixture (see vars.c). */
static const char *const var_scripts[] = {
	"trace f { print \"{} {} {} {} {}\", n, small, big, flag, letter; }",
	"trace f { print \"{} {:x}\", color, color; }",
	"trace f { print \"{} {} {}\", req.id, req.name, req.tags[2]; }",
	"trace f { print \"{} {}\", req.pos, req.pos.y; }",
	"trace f { print \"{} {}\", req.bits.low, req.bits.high; }",
	"trace f { print \"{} {}\", *req, req.next; }",
	"trace f { print \"{} {} {}\", counter, label, global_req.name; }",
	"trace f { print \"{}\", cast(req, \"struct point *\").x; }",
	"trace f { print \"{}\", &global_req; }",
	"trace f { print req.tags[n % 4] + 1; }",
	"trace f { if req.name == \"req-3\" { print \"three\"; } }",
	"trace f { if starts_with(label, \"vars\") && strncmp(req.name, \"req\", 3) { bt; } }",
	"trace f { let id = req.id; if id > 2 && req.next != 0 { print \"{}\", req.next.id; } }",
	"trace f { print \"{:x}\", req.pos; }",
};

/* What the generator asks about the program, answered from a module. */
struct vars_ctx {
	struct dw_module *m;
	uint64_t pc;
};

static int var_find(void *ctx, const char *name, struct dw_var *out)
{
	struct vars_ctx *v = ctx;

	return dw_var_find(v->m, v->pc, name, out);
}

static void var_hint(void *ctx, struct strbuf *out)
{
	(void)ctx;
	strbuf_addstr(out, "(no hint in this test)");
}

/* The tracer's way, within one module. */
static int type_find(void *ctx, const struct typespec *ts, const struct dw_type **out, struct diag *d)
{
	struct vars_ctx *v = ctx;
	const struct dw_type *base = ts->base == TYPESPEC_BUILTIN ? dw_type_builtin(ts->name)
								  : dw_type_named(v->m, ts->name);

	if (!base) {
		diag_set(d, ts->name_loc, NULL, "no type '%s'", ts->name);
		return -WR_ESEMANTIC;
	}
	return casttype_build(v->m, base, ts, out, d);
}

static const struct dw_type *type_pointer(void *ctx, const struct dw_type *target)
{
	struct vars_ctx *v = ctx;

	return dw_type_pointer(v->m, target);
}

/* Compiled objects, kept for loading. */
struct objects {
	struct bpf_blob *v;
	size_t n, cap;
	size_t typed; /* print arguments whose type codegen_probe() returned */
};

static struct ast_script *parse(const char *text)
{
	struct ast_script *sc = NULL;
	struct diag d = { 0 };

	if (script_parse(text, &sc, &d) || script_check(sc, &d))
		fail_msg("catalogue script does not parse: %s\n  %s", d.msg ? d.msg : "?", text);
	diag_release(&d);
	return sc;
}

/* True when @ir defines @name as an external function (a BPF global
 * function the verifier checks on its own), not an internal one. */
static bool is_global_function(const char *ir, const char *name)
{
	char def[80];
	const char *at = ir;

	snprintf(def, sizeof(def), "@%s(", name);
	while ((at = strstr(at, def))) {
		const char *line = at;

		while (line > ir && line[-1] != '\n')
			line--;
		if (strncmp(line, "define ", 7) == 0)
			return !memmem(line, (size_t)(at - line), " internal ", 10);
		at += strlen(def);
	}
	return false;
}

/* Compile @text with @plan's settings into a new object in @objs. */
static void compile(const char *text, struct probe_plan *plan, struct objects *objs)
{
	struct codegen_options co = { .transport = WR_TRANSPORT_RINGBUF };
	struct ast_script *sc = parse(text);
	struct strbuf ir = STRBUF_INIT;
	struct diag d = { 0 };
	struct codegen_args args;
	struct bpf_blob blob;
	int err;

	plan->ast = sc->probes[0];
	plan->probe_id = (uint32_t)objs->n + 1;
	err = codegen_probe(&co, plan, &blob, &args, &d, &ir);
	if (err)
		fail_msg("%s: %s\n  %s", wr_strerror(err), d.msg ? d.msg : "(no diagnostic)", text);
	for (size_t i = 0; i < args.n; i++) {
		assert_non_null(args.v[i].type); /* every print argument has its type */
		objs->typed++;
	}
	codegen_args_release(&args);
	assert_true(blob.size > 64);
	assert_memory_equal(blob.data, "\177ELF", 4);
	assert_non_null(blob.prog_name);
	assert_non_null(strstr(ir.buf, blob.prog_name));
	/* BTF for libbpf and the kernel, and no DWARF, which nothing reads
	 * (the templates' module flags, Makefile.am). */
	assert_non_null(memmem(blob.data, blob.size, ".BTF.ext", 8));
	assert_null(memmem(blob.data, blob.size, ".debug_info", 11));
	/* Every entry point was inlined into the probe, but those the template
	 * keeps as BPF global functions (WR_SUBPROG: external definitions). */
	for (const struct wr_entry *e = wr_entry_points; e < wr_entry_points + WR_FN_COUNT_; e++) {
		char call[64];

		snprintf(call, sizeof(call), "@%s(", e->name);
		if (strstr(ir.buf, call) && !is_global_function(ir.buf, e->name))
			fail_msg("a call to %s survived optimisation:\n  %s", e->name, text);
	}
	objs->v = xgrow(objs->v, &objs->cap, objs->n + 1, sizeof(*objs->v));
	objs->v[objs->n++] = blob;
	strbuf_release(&ir);
	diag_release(&d);
	ast_script_free(sc);
}

/* The kernel's verifier accepts every object (as root), each loaded with
 * the base object's maps as a session loads them. */
static void load_all(struct objects *objs)
{
	struct codegen_options co = { .transport = WR_TRANSPORT_RINGBUF };
	struct rt_options ro = { .transport = WR_TRANSPORT_RINGBUF };
	struct bpf_blob base;
	struct runtime *rt = NULL;
	int err;

	assert_int_equal(codegen_base(&co, &base), 0);
	err = geteuid() == 0 ? runtime_new(&ro, &base, &rt) : -WR_EPERM;
	bpf_blob_release(&base);
	if (err == -WR_EPERM) {
		print_message("not root: %zu objects compiled and verified by LLVM, not loaded\n", objs->n);
		return;
	}
	assert_int_equal(err, 0);
	for (size_t i = 0; i < objs->n; i++) {
		struct rt_probe *p = NULL;
		char *why = NULL;

		err = runtime_load_probe(rt, &objs->v[i], i + 1, &p, &why);
		if (err)
			fail_msg("object %zu was rejected: %s: %s", i, wr_strerror(err), why ? why : "");
		runtime_unload(rt, p);
	}
	runtime_free(rt);
}

static void objects_release(struct objects *objs)
{
	for (size_t i = 0; i < objs->n; i++)
		bpf_blob_release(&objs->v[i]);
	free(objs->v);
}

static void test_plain_catalogue(void **state)
{
	struct probe_plan plan = { .pc = 0x1000, .rule0 = WR_RULE_LOOKUP, .bt_depth = 16,
				   .name = "catalogue", .cfa_reg = -1 };
	struct objects objs = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(plain_scripts) / sizeof(plain_scripts[0]); i++)
		compile(plain_scripts[i], &plan, &objs);
	plan.rule0 = WR_CFI_RULE_NONE;
	plan.bt_depth = WR_BT_MAX_DEPTH;
	plan.tgid = 4242;
	compile("trace f { bt; }", &plan, &objs);
	load_all(&objs);
	objects_release(&objs);
}

/* The CFA rule at @pc, for variables addressed from the frame base. */
static void frame_cfa(struct dw_module *m, uint64_t pc, struct probe_plan *plan)
{
	struct cfi_rules rules;
	struct cfi_table t;
	long row;

	cfi_rules_init(&rules);
	cfi_table_init(&t);
	assert_int_equal(cfi_table_extract(m, &rules, &t), 0);
	row = cfi_table_lookup(&t, pc);
	assert_true(row >= 0);
	plan->rule0 = t.rows[row].rule;
	plan->cfa_reg = rules.v[plan->rule0].cfa_reg;
	plan->cfa_off = rules.v[plan->rule0].cfa_off;
	cfi_table_release(&t);
	cfi_rules_release(&rules);
}

static void var_catalogue(const char *fixture, const char *extra)
{
	const char *dir = getenv("WRAITH_FIXTURES");
	struct dw_sites sites = { 0 };
	struct vars_ctx vc = { 0 };
	struct probe_plan plan = { .bt_depth = 8, .name = fixture };
	struct objects objs = { 0 };
	char path[4096];

	if (!dir)
		fail_msg("WRAITH_FIXTURES is not set: run this test through `make check`");
	snprintf(path, sizeof(path), "%s/%s", dir, fixture);
	assert_int_equal(dw_module_open(path, &vc.m), 0);
	assert_int_equal(dw_resolve_function(vc.m, "probe_here", &sites), 0);
	vc.pc = sites.v[0].vaddr;
	dw_sites_release(&sites);
	plan.pc = vc.pc;
	plan.vars = (struct plan_vars){ .find = var_find, .hint = var_hint, .find_type = type_find,
					.pointer_to = type_pointer, .ctx = &vc };
	frame_cfa(vc.m, vc.pc, &plan);
	for (size_t i = 0; i < sizeof(var_scripts) / sizeof(var_scripts[0]); i++)
		compile(var_scripts[i], &plan, &objs);
	if (extra)
		compile(extra, &plan, &objs);
	assert_true(objs.typed > 0); /* the renderer learns the types it shows */
	load_all(&objs);
	objects_release(&objs);
	dw_module_free(vc.m);
}

static void test_vars_O0(void **state)
{
	(void)state;
	var_catalogue("vars-O0", "trace f { print \"{}\", ratio; }"); /* a double on the frame */
}

static void test_vars_O2(void **state)
{
	(void)state;
	var_catalogue("vars-O2", NULL); /* ratio lives in xmm0 there: not readable */
}

/* A located error, not a crash, for a variable the program lacks. */
static void test_unknown_variable(void **state)
{
	struct codegen_options co = { .transport = WR_TRANSPORT_PERF };
	struct probe_plan plan = { .pc = 0x1000, .rule0 = WR_RULE_LOOKUP, .cfa_reg = -1 };
	struct ast_script *sc = parse("trace f { print \"{}\", nosuch; }");
	struct diag d = { 0 };
	struct bpf_blob blob;

	(void)state;
	plan.ast = sc->probes[0];
	assert_int_equal(codegen_probe(&co, &plan, &blob, NULL, &d, NULL), -WR_ESEMANTIC);
	assert_non_null(d.msg);
	assert_int_equal(d.loc.line, 1);
	assert_int_equal(d.loc.col, 23);
	assert_null(blob.data);
	diag_release(&d);
	ast_script_free(sc);
}

/* The object of @text's probe under @co and @plan (its AST set here). */
static struct bpf_blob compile_with(const char *text, const struct codegen_options *co,
				    struct probe_plan plan)
{
	struct ast_script *sc = parse(text);
	struct diag d = { 0 };
	struct bpf_blob blob;

	plan.ast = sc->probes[0];
	assert_int_equal(codegen_probe(co, &plan, &blob, NULL, &d, NULL), 0);
	diag_release(&d);
	ast_script_free(sc);
	return blob;
}

static struct bpf_blob compile_in(const char *text, uint32_t probe_id,
				  struct codegen_cache *cache)
{
	struct codegen_options co = { .transport = WR_TRANSPORT_RINGBUF, .cache = cache };
	struct probe_plan plan = { .probe_id = probe_id, .pc = 0x1000, .rule0 = WR_RULE_LOOKUP,
				   .cfa_reg = -1 };

	return compile_with(text, &co, plan);
}

/* A probe another run compiled comes from the probe cache on disk,
 * renamed for this process and probe, and the kernel loads it.  The other
 * run is a child process, with a cache of its own. */
static void test_disk_cache(void **state)
{
	static const char text[] = "trace f { print \"{}\", $tid * 3; bt; }";
	char dir[] = "/tmp/wraith-test-cg-cache.XXXXXX", name[32], *rm;
	struct objects objs = { 0 };
	struct codegen_cache *cache;
	struct bpf_blob b;
	int status;
	pid_t child;

	(void)state;
	assert_non_null(mkdtemp(dir));
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		b = compile_in(text, 99, codegen_cache_new(dir));
		_exit(b.origin == BPF_BLOB_COMPILED ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cache = codegen_cache_new(dir);
	b = compile_in(text, 4, cache);
	codegen_cache_free(cache);
	assert_int_equal(b.origin, BPF_BLOB_DISK_CACHE);
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, (int)getpid(), 4u);
	assert_string_equal(b.prog_name, name);
	assert_non_null(memmem(b.data, b.size, name, strlen(name) + 1));
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, (int)child, 99u);
	assert_null(memmem(b.data, b.size, name, strlen(name)));
	objs.v = xgrow(objs.v, &objs.cap, 1, sizeof(*objs.v));
	objs.v[objs.n++] = b;
	load_all(&objs);
	objects_release(&objs);
	/* Every name has one width, within the kernel's 15 characters: pids
	 * wrap at pid_max, and the child that stored the object may have
	 * had fewer digits than this process (which made this test fail). */
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, 7, 1u);
	assert_int_equal(strlen(name), 15);
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, 4194304, 99999u);
	assert_int_equal(strlen(name), 15);
	rm = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
}

/* Probes that differ only in what stays on the host (print text, target,
 * id) get the same object, which the runtime then loads once; a probe
 * reading something else does not. */
static void test_shared_shapes(void **state)
{
	struct codegen_cache *cache = codegen_cache_new(NULL);
	struct bpf_blob a = compile_in("trace f { print \"a {}\", $pid; }", 7, cache);
	struct bpf_blob b = compile_in("trace g { print \"b: {}!\", $pid; }", 8, cache);
	struct bpf_blob c = compile_in("trace f { print \"a {}\", $tid; }", 9, cache);

	(void)state;
	assert_int_equal(b.origin, BPF_BLOB_SHAPE);
	codegen_cache_free(cache);
	assert_int_equal(a.size, b.size);
	assert_memory_equal(a.data, b.data, a.size);
	assert_true(a.size != c.size || memcmp(a.data, c.data, a.size) != 0);
	bpf_blob_release(&a);
	bpf_blob_release(&b);
	bpf_blob_release(&c);
}

/* `x`, a long, in the form of the site: ctx points at its location. */
static const struct dw_type long_type = { .kind = DW_TYPE_INT, .name = "long", .size = 8,
					  .is_signed = true };

static int form_find(void *ctx, const char *name, struct dw_var *out)
{
	if (strcmp(name, "x"))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->name = "x";
	out->type = &long_type;
	out->loc = *(const struct dw_loc *)ctx;
	return 0;
}

/* Sites whose `x` lives in the same form (a register, whichever) have one
 * shape and differ in their table entries; sites of other forms (a stack
 * slot, a constant, optimized out) have shapes of their own; the forms
 * compile into one object, which the kernel loads, and which is found
 * again by its forms. */
static void test_forms(void **state)
{
	static const struct dw_loc locs[] = {
		{ .kind = DW_LOC_REG, .reg = 5 },
		{ .kind = DW_LOC_REG, .reg = 3 },
		{ .kind = DW_LOC_MEM_CFA, .offset = -24 },
		{ .kind = DW_LOC_CONST, .offset = 42 },
		{ .kind = DW_LOC_OPTIMIZED_OUT },
	};
	enum { N = sizeof(locs) / sizeof(locs[0]) };
	struct codegen_cache *cache = codegen_cache_new(NULL);
	struct codegen_options co = { .transport = WR_TRANSPORT_RINGBUF, .cache = cache };
	struct ast_script *sc = parse("trace f { print \"{} {}\", x, $pc; bt; }");
	struct probe_plan plans[N];
	struct codegen_shape shapes[N];
	const struct probe_plan *pp[N - 1];
	const struct codegen_shape *sp[N - 1];
	struct objects objs = { 0 };
	struct bpf_blob again;
	struct diag d = { 0 };

	(void)state;
	for (size_t i = 0; i < N; i++) {
		plans[i] = (struct probe_plan){ .probe_id = (uint32_t)i + 1, .ast = sc->probes[0], .pc = 0x1000 + i,
						.rule0 = WR_RULE_LOOKUP, .cfa_reg = 7, .cfa_off = 8,
						.site_table = true,
						.vars = { .find = form_find, .hint = var_hint,
							  .ctx = (void *)&locs[i] } };
		assert_int_equal(codegen_shape(&co, &plans[i], &shapes[i], NULL, &d), 0);
	}
	assert_string_equal(shapes[0].key, shapes[1].key);
	assert_true(shapes[0].n_params > 0 && shapes[0].n_params == shapes[1].n_params);
	assert_memory_not_equal(shapes[0].params, shapes[1].params,
				shapes[0].n_params * sizeof(*shapes[0].params));
	for (size_t i = 1; i < N; i++)
		for (size_t j = i + 1; j < N; j++)
			assert_string_not_equal(shapes[i].key, shapes[j].key);
	for (size_t i = 1; i < N; i++) {
		pp[i - 1] = &plans[i];
		sp[i - 1] = &shapes[i];
		assert_true(shapes[i].n_params < WR_SITE_FORM);
	}
	objs.v = xgrow(objs.v, &objs.cap, 1, sizeof(*objs.v));
	assert_int_equal(codegen_forms(&co, pp, sp, N - 1, &objs.v[0], &d), 0);
	assert_int_equal(objs.v[0].origin, BPF_BLOB_COMPILED);
	assert_true(objs.v[0].site_table);
	objs.n = 1;
	assert_int_equal(codegen_forms(&co, pp, sp, N - 1, &again, &d), 0);
	assert_int_equal(again.origin, BPF_BLOB_SHAPE);
	assert_int_equal(again.size, objs.v[0].size);
	bpf_blob_release(&again);
	load_all(&objs);
	objects_release(&objs);
	for (size_t i = 0; i < N; i++)
		codegen_shape_release(&shapes[i]);
	diag_release(&d);
	codegen_cache_free(cache);
	ast_script_free(sc);
}

/* A std::string_view `sv` on the stack: its characters are copied by a
 * walk program, as many as print elements allows. */
static const struct dw_type sv_size = { .kind = DW_TYPE_INT, .name = "unsigned long", .size = 8 };
static const struct dw_type sv_char = { .kind = DW_TYPE_INT, .name = "char", .size = 1, .is_char = true,
					.is_signed = true };
static const struct dw_type sv_cstr = { .kind = DW_TYPE_POINTER, .name = "const char *", .size = 8,
					.target = &sv_char };
static const struct dw_member sv_members[] = {
	{ .name = "_M_len", .offset = 0, .type = &sv_size },
	{ .name = "_M_str", .offset = 8, .type = &sv_cstr },
};
static const struct dw_type sv_type = {
	.kind = DW_TYPE_STRUCT, .size = 16, .members = sv_members, .n_members = 2,
	.name = "std::string_view",
	.tag_name = "std::basic_string_view<char, std::char_traits<char> >",
};

static int sv_find(void *ctx, const char *name, struct dw_var *out)
{
	(void)ctx;
	if (strcmp(name, "sv"))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->name = "sv";
	out->type = &sv_type;
	out->loc = (struct dw_loc){ .kind = DW_LOC_MEM_CFA, .offset = -32 };
	return 0;
}

/* The object of `print sv` with @elements, and how it was found. */
static struct bpf_blob compile_sv(unsigned elements, uint32_t probe_id, struct codegen_cache *cache)
{
	struct codegen_options co = { .transport = WR_TRANSPORT_RINGBUF, .cache = cache,
				      .print_elements = elements };
	struct probe_plan plan = { .probe_id = probe_id, .pc = 0x1000, .rule0 = WR_RULE_LOOKUP,
				   .cfa_reg = 7, .cfa_off = 8, .vars = { .find = sv_find, .hint = var_hint } };

	return compile_with("trace f { print \"{}\", sv; }", &co, plan);
}

/* print elements bounds what a probe copies, so a probe compiled under
 * one limit is never reused under another (which would copy more or
 * fewer characters than the renderer then shows); under the same one
 * it is. */
static void test_print_elements_shape(void **state)
{
	struct codegen_cache *cache = codegen_cache_new(NULL);
	struct bpf_blob a = compile_sv(5, 1, cache);
	struct bpf_blob b = compile_sv(7, 2, cache);
	struct bpf_blob c = compile_sv(5, 3, cache);

	(void)state;
	assert_int_equal(a.origin, BPF_BLOB_COMPILED);
	assert_int_equal(b.origin, BPF_BLOB_COMPILED);
	assert_int_equal(c.origin, BPF_BLOB_SHAPE);
	codegen_cache_free(cache);
	bpf_blob_release(&a);
	bpf_blob_release(&b);
	bpf_blob_release(&c);
}

/* The entry points' identifiers as the generator's sources spell them
 * (WR_FN_<ID>), in the order of wr_entry_points[]. */
static const char *const entry_ids[] = {
#define ENTRY_ID(id, name, n) #id,
	WR_ENTRY_POINTS(ENTRY_ID)
#undef ENTRY_ID
};

/* Every `call(cg, WR_FN_X, args, N)` in the generator's sources names an
 * entry point listed with N parameters, and every listed one is called. */
static void test_entry_points_listed(void **state)
{
	static const char *const files[] = { "src/codegen/ir.c", "src/codegen/lower.c",
					     "src/codegen/expr.c", "src/codegen/cgvalue.c",
					     "src/codegen/locations.c", "src/codegen/values.c",
					     "src/codegen/print_args.c", "src/codegen/strings.c",
					     "src/codegen/builtins.c", "src/codegen/walks.c" };
	const char *srcdir = getenv("WRAITH_SRCDIR");
	size_t called[WR_FN_COUNT_] = { 0 };
	regex_t re;

	(void)state;
	assert_non_null(srcdir);
	assert_int_equal(regcomp(&re, "call\\(cg, WR_FN_([A-Z_]+), [A-Za-z_]+, ([0-9]+)\\)", REG_EXTENDED), 0);
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[4096], *text, *at;
		regmatch_t m[3];

		snprintf(path, sizeof(path), "%s/%s", srcdir, files[f]);
		assert_int_equal(file_read(path, &text, NULL), 0);
		for (at = text; regexec(&re, at, 3, m, 0) == 0; at += m[0].rm_eo) {
			size_t k = 0, len = (size_t)(m[1].rm_eo - m[1].rm_so);

			while (k < WR_FN_COUNT_ && (strncmp(entry_ids[k], at + m[1].rm_so, len) != 0 ||
						    entry_ids[k][len] != '\0'))
				k++;
			if (k == WR_FN_COUNT_)
				fail_msg("%s calls WR_FN_%.*s, which protocol/contract.h does not list",
					 files[f], (int)len, at + m[1].rm_so);
			assert_int_equal(wr_entry_points[k].n_params, strtoul(at + m[2].rm_so, NULL, 10));
			called[k]++;
		}
		free(text);
	}
	for (size_t k = 0; k < WR_FN_COUNT_; k++)
		if (!called[k])
			fail_msg("protocol/contract.h lists %s, which nothing calls", wr_entry_points[k].name);
	regfree(&re);
}

/* codegen/ reaches dwarf/ one way, through plan.h (its opening comment):
 * no other file of codegen/ includes a dwarf/ header. */
static void test_dwarf_through_plan(void **state)
{
	const char *srcdir = getenv("WRAITH_SRCDIR");
	char path[4096];
	struct dirent *d;
	size_t files = 0;
	DIR *dir;

	(void)state;
	assert_non_null(srcdir);
	snprintf(path, sizeof(path), "%s/src/codegen", srcdir);
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);
		char *text;

		if (len < 4 || strcmp(d->d_name, "plan.h") == 0 ||
		    (strcmp(d->d_name + len - 2, ".c") && strcmp(d->d_name + len - 2, ".h") &&
		     strcmp(d->d_name + len - 4, ".cpp")))
			continue;
		snprintf(path, sizeof(path), "%s/src/codegen/%s", srcdir, d->d_name);
		assert_int_equal(file_read(path, &text, NULL), 0);
		if (strstr(text, "#include \"dwarf/"))
			fail_msg("src/codegen/%s includes dwarf/: codegen reaches it through plan.h",
				 d->d_name);
		free(text);
		files++;
	}
	closedir(dir);
	assert_true(files > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_points_listed),
		cmocka_unit_test(test_dwarf_through_plan),
		cmocka_unit_test(test_plain_catalogue),
		cmocka_unit_test(test_unknown_variable),
		cmocka_unit_test(test_shared_shapes),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_print_elements_shape),
		cmocka_unit_test(test_disk_cache),
		cmocka_unit_test(test_vars_O0),
		cmocka_unit_test(test_vars_O2),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	codegen_shutdown();
	return rc;
}
