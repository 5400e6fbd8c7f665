/* codegen.c - the LLVM side of code generation: parse the embedded
 * template bitcode (the one built for the session's transport and
 * --fault-in setting), check its entry points, prepare it (internalise the
 * wr_* entry points), give every generated
 * function debug info, verify, optimise and emit a BPF object to memory.
 * Statement and expression lowering lives in lower.c and the files under
 * it (codegen.h says their order).
 *
 * Debug info on the probe function is not optional: once inlined template
 * code carries debug locations, LLVM writes .BTF.ext line info, and libbpf
 * then wants func_info for every program, and the kernel a named parameter
 * in each FUNC's BTF, or it drops BTF (which the maps need).  The object
 * holds no DWARF: the templates' module flags ask for none (Makefile.am).
 */
#include "codegen/codegen.h"
#include "codegen/lower.h"
#include "codegen/passes.h"
#include "codegen/probe_cache.h"
#include "protocol/contract.h"
#include "protocol/wire.h"
#include "util/buildid.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/htab.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const unsigned char wr_probe_ringbuf_0_start[], wr_probe_ringbuf_0_end[];
extern const unsigned char wr_probe_ringbuf_1_start[], wr_probe_ringbuf_1_end[];
extern const unsigned char wr_probe_perf_0_start[], wr_probe_perf_0_end[];
extern const unsigned char wr_probe_perf_1_start[], wr_probe_perf_1_end[];
extern const unsigned char wr_base_ringbuf_start[];
extern const unsigned char wr_base_ringbuf_end[];
extern const unsigned char wr_base_perf_start[];
extern const unsigned char wr_base_perf_end[];
extern const unsigned char wr_base_ringbuf_lean_start[];
extern const unsigned char wr_base_ringbuf_lean_end[];
extern const unsigned char wr_base_perf_lean_start[];
extern const unsigned char wr_base_perf_lean_end[];

/* ---- LLVM, once a process ----
 * The one state of codegen/ that is not its caller's, and why: LLVM's
 * options and its BPF target are the process's (set once; LLVMShutdown()
 * ends them for everyone), and LLVM is started before any session exists
 * (codegen_prepare(), on a thread of its own, overlapping the opening of
 * the target), which builds the shape key module (the template with its
 * bodies unread, every probe lowered into it for its key) and a spare
 * template for the first compile.  What belongs to a session, the
 * objects compiled by shape, is its struct codegen_cache.  Released at
 * exit by codegen_shutdown(). */
static struct {
	LLVMTargetMachineRef machine; /* the BPF target (init_target()) */
	bool options_set;             /* LLVM's options, parsed once */
	bool exit_hook;               /* early_join() registered with atexit() */
	struct cg key;                /* the shape key module (key_module()) */
	struct {
		pthread_t thread;
		bool running;
		struct codegen_options opt;
		struct cg spare; /* the parsed template, until a compile takes it */
		struct wr_log_deferred log;
	} early;                      /* LLVM started at launch (codegen_prepare()) */
} llvm;

static int init_target(void)
{
	LLVMTargetRef target;
	char *msg = NULL;

	if (llvm.machine)
		return 0;
	if (!llvm.options_set) {
		/* Reading the template's bitcode would run the IR verifier over all
		 * of it (the debug info check of the bitcode reader): a fifth of a
		 * parse, for a template this build's own clang wrote.  The module
		 * a probe compiles into is verified whole before optimisation. */
		static const char *const argv[] = { "wraith", "-disable-auto-upgrade-debug-info" };

		LLVMParseCommandLineOptions(2, argv, NULL);
		llvm.options_set = true;
	}
	LLVMInitializeBPFTargetInfo();
	LLVMInitializeBPFTarget();
	LLVMInitializeBPFTargetMC();
	LLVMInitializeBPFAsmPrinter();
	if (LLVMGetTargetFromTriple("bpfel", &target, &msg)) {
		wr_error("LLVM has no BPF target: %s", msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return -WR_ECODEGEN;
	}
	/* CPU v3: 32-bit subregisters and jumps, kernel 5.1 and later. */
	llvm.machine = LLVMCreateTargetMachine(target, "bpfel", "v3", "", LLVMCodeGenLevelDefault,
						 LLVMRelocDefault, LLVMCodeModelDefault);
	return llvm.machine ? 0 : -WR_ECODEGEN;
}

static int key_module(const struct codegen_options *opt);
static int cg_parse(struct cg *cg, const struct codegen_options *opt);
static void cg_end(struct cg *cg);
static void on_llvm_diag(LLVMDiagnosticInfoRef info, void *opaque);

/* ---- LLVM started at launch ----
 * codegen_prepare() runs on a thread of its own what every first compile
 * needs before it can lower anything: LLVM's options and BPF target, the
 * shape key module, and one template parsed for the first probe.  It
 * overlaps opening the target, reading its CFI and resolving the sites.
 * Every codegen entry point joins it first, so LLVM is never used by two
 * threads at once; its log lines are replayed by the joining thread. */
static void *early_main(void *arg)
{
	(void)arg;
	wr_log_defer(&llvm.early.log);
	if (init_target() || key_module(&llvm.early.opt) ||
	    cg_parse(&llvm.early.spare, &llvm.early.opt)) {
		/* The compile tries again and says why. */
		cg_end(&llvm.early.spare);
		if (!llvm.key.mod && llvm.key.ctx)
			LLVMContextDispose(llvm.key.ctx);
		if (!llvm.key.mod)
			llvm.key.ctx = NULL;
	}
	wr_log_defer(NULL);
	return NULL;
}

static void early_join(void)
{
	if (!llvm.early.running)
		return;
	pthread_join(llvm.early.thread, NULL);
	llvm.early.running = false;
	wr_log_replay(&llvm.early.log);
}

void codegen_prepare(const struct codegen_options *opt)
{
	if (llvm.early.running || llvm.machine)
		return;
	/* exit() must not run LLVM's destructors under the thread. */
	if (!llvm.exit_hook && atexit(early_join) == 0)
		llvm.exit_hook = true;
	if (!llvm.exit_hook)
		return;
	llvm.early.opt = *opt;
	llvm.early.running = thread_start_unsignalled(&llvm.early.thread, early_main, NULL);
}

/* Hand @cg the template parsed at launch if it was parsed for @opt. */
static bool early_take(struct cg *cg, const struct codegen_options *opt)
{
	early_join();
	if (!llvm.early.spare.mod || llvm.early.opt.transport != opt->transport ||
	    llvm.early.opt.fault_in != opt->fault_in)
		return false;
	cg->ctx = llvm.early.spare.ctx;
	cg->mod = llvm.early.spare.mod;
	LLVMContextSetDiagnosticHandler(cg->ctx, on_llvm_diag, cg);
	memset(&llvm.early.spare, 0, sizeof(llvm.early.spare));
	return true;
}

void codegen_shutdown(void)
{
	early_join();
	cg_end(&llvm.early.spare);
	if (llvm.key.mod)
		LLVMDisposeModule(llvm.key.mod);
	if (llvm.key.ctx)
		LLVMContextDispose(llvm.key.ctx);
	memset(&llvm.key, 0, sizeof(llvm.key));
	if (llvm.machine)
		LLVMDisposeTargetMachine(llvm.machine);
	llvm.machine = NULL;
	LLVMShutdown();
}

static void stack_error(const struct cg *cg)
{
	wr_error("%s: the probe needs more than the kernel's 512-byte BPF stack (it holds too many "
		 "values at once)\nhint: split its statements over two probes on the same place "
		 "(trace %s { ... } trace %s { ... }), or bind fewer values with let", cg->what, cg->what,
		 cg->what);
}

/* LLVM reports backend errors here instead of exiting the process; the
 * emit call still "succeeds", so we count errors and check afterwards. */
static void on_llvm_diag(LLVMDiagnosticInfoRef info, void *opaque)
{
	struct cg *cg = opaque;
	char *text;

	if (LLVMGetDiagInfoSeverity(info) != LLVMDSError)
		return;
	text = LLVMGetDiagInfoDescription(info);
	if (strstr(text, "stack limit is exceeded") && !cg->llvm_errors && !cg->stack_quiet)
		stack_error(cg);
	if (strstr(text, "stack limit is exceeded"))
		cg->stack_exceeded = true;
	else
		wr_error("code generation for %s failed: %s", cg->what, text);
	LLVMDisposeMessage(text);
	cg->llvm_errors++;
}

/* Parses the embedded template built for @opt's transport and --fault-in
 * setting (Makefile.am) into cg->ctx.  @lazy leaves the function
 * bodies unread until something asks for them: the shape key module needs
 * only the entry points' signatures, and their bodies are most of a parse. */
static int parse_template(struct cg *cg, const struct codegen_options *opt, bool lazy)
{
	static const struct {
		const unsigned char *start, *end;
	} blobs[2][2] = {
		{ { wr_probe_ringbuf_0_start, wr_probe_ringbuf_0_end },
		  { wr_probe_ringbuf_1_start, wr_probe_ringbuf_1_end } },
		{ { wr_probe_perf_0_start, wr_probe_perf_0_end },
		  { wr_probe_perf_1_start, wr_probe_perf_1_end } },
	};
	bool perf = opt->transport == WR_TRANSPORT_PERF;
	const unsigned char *start = blobs[perf][opt->fault_in != 0].start;
	const unsigned char *end = blobs[perf][opt->fault_in != 0].end;
	LLVMMemoryBufferRef mb;
	LLVMBool failed;

	mb = LLVMCreateMemoryBufferWithMemoryRange((const char *)start, (size_t)(end - start),
						   "wraith.bc", 0);
	if (lazy) {
		/* Takes the buffer, whether it fails or not. */
		failed = LLVMGetBitcodeModuleInContext2(cg->ctx, mb, &cg->mod);
	} else {
		failed = LLVMParseBitcodeInContext2(cg->ctx, mb, &cg->mod);
		LLVMDisposeMemoryBuffer(mb);
	}
	if (failed) {
		wr_error("the embedded BPF template does not parse");
		return -WR_ECODEGEN;
	}
	return 0;
}

/* The template's WR_SUBPROG entry points: BPF global functions, whose
 * signatures must stay as their BTF says, so they stay external (an
 * internal function's unused or constant arguments are optimised away). */
static bool is_subprogram(LLVMValueRef fn)
{
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);

	return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, noinline) != NULL;
}

/* Make the wr_* entry points internal so they are inlined and dropped.
 * The configuration (transport, --fault-in) is already folded: each
 * setting has a template of its own (Makefile.am). */
static void prepare_template(struct cg *cg)
{
	LLVMValueRef fn = LLVMGetFirstFunction(cg->mod);
	LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, "llvm.compiler.used");

	/* SEC() marks programs and maps "used"; nothing in a probe object needs
	 * it (maps and the license stay: they are external definitions). */
	if (g)
		LLVMDeleteGlobal(g);
	while (fn) {
		const char *name = LLVMGetValueName(fn);

		if (!LLVMIsDeclaration(fn) && strncmp(name, WR_NAME_PREFIX, strlen(WR_NAME_PREFIX)) == 0 &&
		    !is_subprogram(fn))
			LLVMSetLinkage(fn, LLVMInternalLinkage);
		fn = LLVMGetNextFunction(fn);
	}
}

/* After lowering: delete the template's functions the probe does not
 * reach.  The WR_SUBPROG entry points stay external (see is_subprogram),
 * so the optimiser may not drop them; left in, every probe object carried
 * all of them, and each was optimised, emitted and checked by the
 * verifier on its own although nothing called it.  Repeats until no
 * function loses its last caller. */
static void drop_unreached(struct cg *cg)
{
	bool dropped = true;

	while (dropped) {
		LLVMValueRef fn = LLVMGetFirstFunction(cg->mod);

		dropped = false;
		while (fn) {
			LLVMValueRef next = LLVMGetNextFunction(fn);

			if (fn != cg->fn && !LLVMIsDeclaration(fn) && !LLVMGetFirstUse(fn)) {
				LLVMDeleteFunction(fn);
				dropped = true;
			}
			fn = next;
		}
	}
}

/* How many calls of entry point @e the lowered probe makes. */
/* Calls of entry point @e in the probe function (the template's own calls
 * between its functions are not the probe's). */
static unsigned calls_to(struct cg *cg, enum wr_entry_point e)
{
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, wr_entry_points[e].name), user;
	unsigned n = 0, forms = cg->n_forms ? cg->n_forms : 1;

	for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u; u = LLVMGetNextUse(u)) {
		user = LLVMGetUser(u);
		if (LLVMIsACallInst(user) &&
		    LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == cg->fn)
			n++;
	}
	/* the forms of lower_forms() have the same statements, one runs */
	return (n + forms - 1) / forms;
}

/* @value as the template's constant @c, if it has it. */
static void fix_config(struct cg *cg, enum wr_config_id c, unsigned value)
{
	LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, wr_config_names[c]);

	if (!g)
		return;
	LLVMSetInitializer(g, LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), value, 0));
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* After lowering: whether the probe walks a stack, by bt or count bt
 * (wr_cfg_has_bt: a sleepable probe carries the unwinder only then), how many
 * bt and count bt statements it has (wr_cfg_bt_slots; see the template),
 * and whether its event can be sent (wr_cfg_sends): not when `count bt`
 * is all that adds to it, no print, bt or expression error.  A script has
 * no loops: each call runs at most once. */
static void fix_bt_config(struct cg *cg)
{
	unsigned bts = calls_to(cg, WR_FN_BT), counts = calls_to(cg, WR_FN_COUNT_BT);
	unsigned items = bts + calls_to(cg, WR_FN_ITEM_OPEN) + calls_to(cg, WR_FN_ITEM_EMPTY) +
			 calls_to(cg, WR_FN_EXPR_ERROR) + calls_to(cg, WR_FN_MEM_EQUAL);

	fix_config(cg, WR_CFG_HAS_BT, bts + counts > 0);
	fix_config(cg, WR_CFG_BT_SLOTS, bts + counts < WR_BT_MAX_SLOTS ? bts + counts : WR_BT_MAX_SLOTS);
	fix_config(cg, WR_CFG_SENDS, !counts || items);
}

/* Every entry point the generator calls is defined in the template, with
 * the parameters it passes.  Returns 0 or -WR_ECODEGEN (logged). */
static int check_entry_points(struct cg *cg)
{
	for (const struct wr_entry *e = wr_entry_points; e < wr_entry_points + WR_FN_COUNT_; e++) {
		LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, e->name);

		if (fn && !LLVMIsDeclaration(fn) && LLVMCountParams(fn) == e->n_params)
			continue;
		wr_error("the embedded BPF template has no entry point %s with %u parameters, which "
			 "the code generator calls; wraith was built from mismatched sources", e->name,
			 e->n_params);
		return -WR_ECODEGEN;
	}
	return 0;
}

/* The template for @opt parsed and prepared into a new context of @cg. */
static int cg_parse(struct cg *cg, const struct codegen_options *opt)
{
	LLVMTargetDataRef dl;
	int err;

	cg->ctx = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(cg->ctx, on_llvm_diag, cg);
	err = parse_template(cg, opt, false);
	if (!err)
		err = check_entry_points(cg);
	if (err)
		return err;
	prepare_template(cg);
	LLVMSetTarget(cg->mod, "bpfel");
	dl = LLVMCreateTargetDataLayout(llvm.machine);
	LLVMSetModuleDataLayout(cg->mod, dl);
	LLVMDisposeTargetData(dl);
	return 0;
}

static bool early_take(struct cg *cg, const struct codegen_options *opt);

static int cg_begin(struct cg *cg, const struct codegen_options *opt, const char *what)
{
	int err;

	early_join();
	err = init_target();
	if (err)
		return err;
	cg->what = what;
	if (early_take(cg, opt))
		return 0;
	return cg_parse(cg, opt);
}

static void cg_end(struct cg *cg)
{
	lower_release(cg);
	if (cg->dib)
		LLVMDisposeDIBuilder(cg->dib);
	if (cg->builder)
		LLVMDisposeBuilder(cg->builder);
	if (cg->mod)
		LLVMDisposeModule(cg->mod);
	if (cg->ctx)
		LLVMContextDispose(cg->ctx);
	memset(cg, 0, sizeof(*cg));
}

/* After optimisation: delete the template's maps the probe's code does
 * not use.  Each is an external definition the optimiser keeps, and each
 * made the object larger by its BTF (its key and value types), its
 * emission slower, and its load too: the runtime shares every map of a
 * probe object with the base object's (reuse_maps).  `trace f { bt; }`
 * uses 5 of the 13. */
static void drop_unused_maps(struct cg *cg)
{
	LLVMValueRef g = LLVMGetFirstGlobal(cg->mod);

	while (g) {
		LLVMValueRef next = LLVMGetNextGlobal(g);
		const char *section = LLVMGetSection(g);

		if (section && strcmp(section, ".maps") == 0 && !LLVMGetFirstUse(g))
			LLVMDeleteGlobal(g);
		g = next;
	}
}

static int verify_and_optimise(struct cg *cg)
{
	char *msg = NULL;

	if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &msg)) {
		wr_error("internal error: generated IR for %s does not verify: %s", cg->what, msg);
		LLVMDisposeMessage(msg);
		return -WR_ECODEGEN;
	}
	LLVMDisposeMessage(msg);
	/* Not a default pipeline: the template arrives optimised (clang -O2,
	 * its configuration folded), and what a probe adds is loads, calls
	 * and constants.  Inlining the always_inline entry points and one
	 * round of SROA, CSE, instcombine and simplifycfg folds them; O1 did
	 * its loop, IPO and second-round passes over the whole inlined
	 * template again for nothing (trace f { bt; }: 711 BPF instructions
	 * after O1, 710 after this, in half the time). */
	passes_run(cg->mod, llvm.machine);
	drop_unused_maps(cg);
	return 0;
}

/* The most IR instructions one function of a probe may have (see emit());
 * WRAITH_MAX_PROBE_IR lowers it, for tests. */
#define CG_MAX_FUNCTION_IR 24000u

static size_t max_function_ir(void)
{
	const char *env = getenv("WRAITH_MAX_PROBE_IR");
	unsigned long v = env ? strtoul(env, NULL, 10) : 0;

	return v && v < CG_MAX_FUNCTION_IR ? v : CG_MAX_FUNCTION_IR;
}

/* The instructions of @cg's largest function, after optimisation. */
static size_t largest_function(struct cg *cg)
{
	size_t most = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod); f; f = LLVMGetNextFunction(f)) {
		size_t n = 0;

		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				n++;
		if (n > most)
			most = n;
	}
	return most;
}

static int emit(struct cg *cg, struct bpf_blob *out)
{
	LLVMMemoryBufferRef mb = NULL;
	char *msg = NULL;
	size_t size, ir = largest_function(cg), most = max_function_ir();

	wr_debug("%s: %zu IR instructions in its largest function", cg->what, ir);
	/* A BPF jump reaches 32,767 instructions at most, and LLVM aborts the
	 * process when one cannot: refuse first.  Measured, the probe's code
	 * comes out at about 0.9 BPF instructions per IR instruction. */
	if (ir > most)
		return cg_fail(cg, cg->plan && cg->plan->ast ? cg->plan->ast->target.loc : (struct src_loc){ 0 },
			       "split the statements into probes of their own (trace the same target again), "
			       "or bt instead of bt full",
			       "the program for %s is too large for BPF (%zu IR instructions; at most %zu)",
			       cg->what, ir, most);

	if (LLVMTargetMachineEmitToMemoryBuffer(llvm.machine, cg->mod, LLVMObjectFile, &msg, &mb)) {
		wr_error("emitting BPF code for %s failed: %s", cg->what, msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return -WR_ECODEGEN;
	}
	if (cg->llvm_errors) {
		LLVMDisposeMemoryBuffer(mb);
		return -WR_ECODEGEN;
	}
	size = LLVMGetBufferSize(mb);
	out->data = xmalloc(size);
	memcpy(out->data, LLVMGetBufferStart(mb), size);
	out->size = size;
	LLVMDisposeMemoryBuffer(mb);
	return 0;
}

/* ---- one object per program shape ----
 * Probes whose functions come out the same before optimisation (the same
 * statements reading the same places: print text stays on the host, and
 * the probe's id comes from its attach cookie) get the same object without
 * optimising and emitting again, and the runtime loads it once.  The key
 * is the function's IR text with its name and metadata references (debug
 * locations) left out, and the options the template was prepared for.
 * Bounded: past SHAPES_MAX_BYTES of keys and objects, nothing more is kept.
 * The same key, with this build's identity, finds objects of earlier runs
 * in the probe cache on disk (probe_cache.h). */
#define SHAPES_MAX_BYTES (64u << 20)

struct shape {
	char *key;
	struct bpf_blob blob;
};

struct codegen_cache {
	struct shape *shapes;
	size_t n_shapes, cap_shapes, shapes_bytes;
	struct htab shape_index; /* key -> index in shapes */
	/* The probe cache on disk: opened for the first probe that looks in
	 * it.  A directory that cannot be used is said under -v and not
	 * tried again; the trace goes on without it. */
	char *dir;               /* NULL: none */
	bool disk_tried;
	struct probe_cache *disk;
};

struct codegen_cache *codegen_cache_new(const char *dir)
{
	struct codegen_cache *c = xcalloc(1, sizeof(*c));

	c->dir = dir ? xstrdup(dir) : NULL;
	return c;
}

void codegen_cache_free(struct codegen_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_shapes; i++) {
		free(c->shapes[i].key);
		bpf_blob_release(&c->shapes[i].blob);
	}
	free(c->shapes);
	htab_release(&c->shape_index);
	probe_cache_free(c->disk);
	free(c->dir);
	free(c);
}

/* codegen_options.print_elements, 0 being gdb's default. */
static unsigned print_elements(const struct codegen_options *opt)
{
	return opt->print_elements ? opt->print_elements : 200;
}

/* @text without "!dbg !N"-style metadata references and with the
 * function's @name blanked (caller frees). */
static char *shape_key(const char *text, const char *name, const struct codegen_options *opt)
{
	struct strbuf sb = STRBUF_INIT;
	size_t name_len = strlen(name);

	strbuf_addf(&sb, "transport %d fault-in %d print-elements %u\n", (int)opt->transport, (int)opt->fault_in,
		    print_elements(opt));
	for (const char *p = text; *p;) {
		if (*p == '!' && (p[1] >= '0' && p[1] <= '9')) {
			while (*++p >= '0' && *p <= '9')
				;
			strbuf_addch(&sb, '!');
		} else if (*p == '@' && strncmp(p + 1, name, name_len) == 0 && p[1 + name_len] == '(') {
			strbuf_addch(&sb, '@');
			p += 1 + name_len;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	return strbuf_detach(&sb);
}

static const struct shape *shape_find(struct codegen_cache *c, const char *key)
{
	struct htab_slot *slot = htab_get(&c->shape_index, key, strlen(key), false);

	return slot ? &c->shapes[slot->val] : NULL;
}

/* The object of @src into @dst (its site's data is not copied). */
static void blob_copy(struct bpf_blob *dst, const struct bpf_blob *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->size = src->size;
	dst->data = xmalloc(src->size);
	memcpy(dst->data, src->data, src->size);
	dst->prog_name = src->prog_name ? xstrdup(src->prog_name) : NULL;
}

/* Keep a copy of @blob under @key (taken) while the bound allows. */
static void shape_add(struct codegen_cache *c, char *key, const struct bpf_blob *blob)
{
	size_t len = strlen(key), bytes = len + blob->size;
	struct htab_slot *slot;

	if (c->shapes_bytes + bytes > SHAPES_MAX_BYTES || shape_find(c, key)) {
		free(key);
		return;
	}
	slot = htab_get(&c->shape_index, key, len, true);
	slot->key = key;
	slot->val = (uint32_t)c->n_shapes;
	c->shapes = xgrow(c->shapes, &c->cap_shapes, c->n_shapes + 1, sizeof(*c->shapes));
	c->shapes[c->n_shapes].key = key;
	blob_copy(&c->shapes[c->n_shapes].blob, blob);
	c->n_shapes++;
	c->shapes_bytes += bytes;
}

/* ---- the probe cache on disk ---- */

static struct probe_cache *disk_cache(struct codegen_cache *c)
{
	struct strbuf why = STRBUF_INIT;
	const unsigned char *id;
	size_t id_len;

	if (!c->dir || c->disk_tried)
		return c->disk;
	c->disk_tried = true;
	if (build_id_self(&id, &id_len))
		wr_debug("probe cache %s: not used: this wraith has no build-id to key it by", c->dir);
	else if (probe_cache_open(c->dir, id, id_len, &c->disk, &why))
		wr_debug("probe cache %s: not used: %s", c->dir, why.buf);
	strbuf_release(&why);
	return c->disk;
}

int codegen_base(const struct codegen_options *opt, struct bpf_blob *out)
{
	const unsigned lean_omits = WR_BASE_NO_COUNT | WR_BASE_NO_VALUES;
	bool perf = opt->transport == WR_TRANSPORT_PERF;
	bool lean = (opt->base_omits & lean_omits) == lean_omits;
	const unsigned char *start, *end;

	if (lean) {
		start = perf ? wr_base_perf_lean_start : wr_base_ringbuf_lean_start;
		end = perf ? wr_base_perf_lean_end : wr_base_ringbuf_lean_end;
	} else {
		start = perf ? wr_base_perf_start : wr_base_ringbuf_start;
		end = perf ? wr_base_perf_end : wr_base_ringbuf_end;
	}

	/* Compiled with the templates at build time: nothing to generate. */
	memset(out, 0, sizeof(*out));
	out->size = (size_t)(end - start);
	out->data = xmalloc(out->size);
	memcpy(out->data, start, out->size);
	return 0;
}

/* Debug info for the probe function: libbpf requires func_info for every
 * program once any inlined template code carries debug locations. */
static void add_debug_info(struct cg *cg, LLVMValueRef fn, const char *name)
{
	LLVMMetadataRef file, int_ty, ptr_ty, fn_ty, types[2];

	cg->dib = LLVMCreateDIBuilder(cg->mod);
	/* The BPF backend reads a line info's file for its source text: a
	 * name under /dev/null names no file anyone can make, where
	 * "./wraith-script" read whatever file had that name in the working
	 * directory into every probe object. */
	file = LLVMDIBuilderCreateFile(cg->dib, "<script>", 8, "/dev/null", 9);
	LLVMDIBuilderCreateCompileUnit(cg->dib, LLVMDWARFSourceLanguageC, file, "wraith", 6, 1,
				       "", 0, 0, "", 0, LLVMDWARFEmissionFull, 0, 0, 0,
				       "", 0, "", 0);
	int_ty = LLVMDIBuilderCreateBasicType(cg->dib, "int", 3, 32, 0x05 /* DW_ATE_signed */,
					      LLVMDIFlagZero);
	ptr_ty = LLVMDIBuilderCreatePointerType(cg->dib, NULL, 64, 0, 0, "", 0);
	types[0] = int_ty;
	types[1] = ptr_ty;
	fn_ty = LLVMDIBuilderCreateSubroutineType(cg->dib, file, types, 2, LLVMDIFlagZero);
	cg->di_file = file;
	cg->di_sp = LLVMDIBuilderCreateFunction(cg->dib, file, name, strlen(name), name,
						strlen(name), file, 1, fn_ty, 0, 1, 1,
						LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, cg->di_sp);
	/* A named parameter: the kernel rejects BTF FUNC_PROTOs without names. */
	LLVMDIBuilderCreateParameterVariable(cg->dib, cg->di_sp, "ctx", 3, 1, file, 1, ptr_ty, 1,
					     LLVMDIFlagZero);
}

static LLVMValueRef add_probe_function(struct cg *cg, const char *name)
{
	LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
	LLVMTypeRef fty = LLVMFunctionType(LLVMInt32TypeInContext(cg->ctx), &ptr, 1, 0);
	LLVMValueRef fn = LLVMAddFunction(cg->mod, name, fty);
	unsigned kind = LLVMGetEnumAttributeKindForName("nounwind", 8);

	LLVMSetSection(fn, "uprobe");
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(cg->ctx, kind, 0));
	LLVMSetValueName2(LLVMGetParam(fn, 0), "ctx", 3);
	return fn;
}

/* The template parsed once, where each probe is lowered for its shape
 * key and deleted again: parsing the template is most of a probe's
 * compile, and a probe whose shape is known needs nothing more. */
static int key_module(const struct codegen_options *opt)
{
	LLVMTargetDataRef dl;
	int err;

	if (llvm.key.mod)
		return 0;
	llvm.key.ctx = LLVMContextCreate();
	err = parse_template(&llvm.key, opt, true);
	if (!err)
		err = check_entry_points(&llvm.key);
	if (err)
		return err;
	/* A shape's key is its function printed, and printing a function
	 * numbers every metadata node of its module first: the template's
	 * debug info, thousands of nodes, once per site.  Keys have no debug
	 * info of their own. */
	LLVMStripModuleDebugInfo(llvm.key.mod);
	LLVMSetTarget(llvm.key.mod, "bpfel");
	dl = LLVMCreateTargetDataLayout(llvm.machine);
	LLVMSetModuleDataLayout(llvm.key.mod, dl);
	LLVMDisposeTargetData(dl);
	return 0;
}

void codegen_args_release(struct codegen_args *args)
{
	for (size_t i = 0; i < args->n_markers; i++)
		free(args->markers[i].why);
	free(args->markers);
	free(args->v);
	memset(args, 0, sizeof(*args));
}

/* What @cg's lowering noted of the print arguments, into @args (NULL:
 * not wanted). */
static void take_args(struct cg *cg, struct codegen_args *args)
{
	if (!args)
		return;
	*args = cg->args;
	memset(&cg->args, 0, sizeof(cg->args));
}

/* What @cg lowers next: @plan, under @opt, its errors into @diag. */
static void cg_aim(struct cg *cg, const struct codegen_options *opt, const struct probe_plan *plan,
		   struct diag *diag)
{
	cg->plan = plan;
	cg->diag = diag;
	cg->print_elements = print_elements(opt);
}

/* The probe function @name of @cg, for @plan, with its debug info. */
static void open_function(struct cg *cg, const struct codegen_options *opt, const struct probe_plan *plan,
			  struct diag *diag, const char *name)
{
	cg_aim(cg, opt, plan, diag);
	cg->fn = add_probe_function(cg, name);
	add_debug_info(cg, cg->fn, name);
}

/* After lowering into the probe function: its debug info finished, the
 * template's configuration fixed, the template functions it does not
 * reach dropped. */
static void close_function(struct cg *cg)
{
	LLVMDIBuilderFinalize(cg->dib);
	fix_bt_config(cg);
	drop_unreached(cg);
}

/* Lower @plan without debug info into the key module; its key in *@key
 * (caller frees), its print arguments in @args.  Script errors come back
 * as from codegen_probe. */
static int shape_of(const struct codegen_options *opt, const struct probe_plan *plan,
		    struct diag *diag, char **key, struct codegen_args *args)
{
	struct cg *cg = &llvm.key;
	int err;

	early_join();
	err = init_target();
	*key = NULL;
	if (!err)
		err = key_module(opt);
	if (err)
		return err;
	cg->what = plan->name ? plan->name : "a probe";
	cg_aim(cg, opt, plan, diag);
	cg->llvm_errors = 0;
	cg->fn = add_probe_function(cg, wr_own_names[WR_OWN_SHAPE_FN]);
	err = lower_probe(cg);
	take_args(cg, args);
	if (!err && cg->llvm_errors)
		err = -WR_ECODEGEN;
	if (!err) {
		char *text = LLVMPrintValueToString(cg->fn);

		*key = shape_key(text, wr_own_names[WR_OWN_SHAPE_FN], opt);
		LLVMDisposeMessage(text);
	}
	LLVMDeleteFunction(cg->fn);
	lower_release(cg);
	if (cg->builder)
		LLVMDisposeBuilder(cg->builder);
	cg->builder = NULL;
	cg->fn = NULL;
	return err;
}

/* The site's data the lowering of @cg asked for, into @out. */
static void give_site_params(const struct cg *cg, const struct probe_plan *plan,
			     struct bpf_blob *out)
{
	out->site_table = plan->site_table;
	out->n_site_params = cg->n_params;
	out->site_params = NULL;
	if (cg->n_params) {
		out->site_params = xmalloc(cg->n_params * sizeof(*out->site_params));
		memcpy(out->site_params, cg->params, cg->n_params * sizeof(*out->site_params));
	}
}

/* After a first try of @cg that ended in @err: whether to try again
 * without the copies of frame 0's values its bts make at the hit, which
 * took it over the BPF stack (the bt then shows markers for them, not a
 * refused probe); else the error the first try kept quiet is told. */
static bool stack_retry(struct cg *cg, int err)
{
	if (!err || !cg->stack_quiet || !cg->stack_exceeded)
		return false;
	if (cg->frame_copies) {
		wr_debug("%s: over the BPF stack with frame 0's copies for bt; compiled again without them",
			 cg->what);
		return true;
	}
	stack_error(cg);
	return false;
}

int codegen_probe(const struct codegen_options *opt, const struct probe_plan *plan,
		  struct bpf_blob *out, struct codegen_args *args, struct diag *diag,
		  struct strbuf *ir)
{
	struct probe_cache *cache = NULL;
	struct cg cg = { 0 };
	char name[32], *key = NULL;
	int err;

	double t[6];

	t[0] = thread_cpu_seconds();
	memset(out, 0, sizeof(*out));
	if (args)
		memset(args, 0, sizeof(*args));
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, (int)getpid(), plan->probe_id);
	if (!ir && opt->cache) {
		const struct shape *known;

		err = shape_of(opt, plan, diag, &key, args);
		if (err)
			return err;
		known = shape_find(opt->cache, key);
		if (known) {
			blob_copy(out, &known->blob);
			out->origin = BPF_BLOB_SHAPE;
			give_site_params(&llvm.key, plan, out);
			free(key);
			return 0;
		}
		cache = disk_cache(opt->cache);
		if (cache && probe_cache_get(cache, key, name, out) == 0) {
			wr_debug("codegen %s: from the probe cache, CPU time %.1f ms", name,
				 (thread_cpu_seconds() - t[0]) * 1e3);
			out->origin = BPF_BLOB_DISK_CACHE;
			shape_add(opt->cache, key, out);
			give_site_params(&llvm.key, plan, out);
			return 0;
		}
	}
	for (int again = 0; again < 2; again++) {
		t[1] = thread_cpu_seconds();
		err = cg_begin(&cg, opt, plan->name ? plan->name : name);
		if (err)
			goto out;
		t[2] = thread_cpu_seconds();
		cg.no_frame_copies = again;
		cg.stack_quiet = !again;
		open_function(&cg, opt, plan, diag, name);
		err = lower_probe(&cg);
		if (!key && !again)
			take_args(&cg, args);
		if (!err && cg.llvm_errors)
			err = -WR_ECODEGEN;
		if (err)
			goto out;
		close_function(&cg);
		t[3] = thread_cpu_seconds();
		err = verify_and_optimise(&cg);
		if (err)
			goto out;
		t[4] = thread_cpu_seconds();
		if (ir && !again) {
			char *text = LLVMPrintModuleToString(cg.mod);

			strbuf_addstr(ir, text);
			LLVMDisposeMessage(text);
		}
		err = emit(&cg, out);
		t[5] = thread_cpu_seconds();
		if (!stack_retry(&cg, err))
			break;
		cg_end(&cg);
	}
	if (!err) {
		wr_debug("codegen %s, CPU time: shape key %.1f ms, template %.1f, lowering %.1f, "
			 "passes %.1f, "
			 "emission %.1f", name, (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3,
			 (t[3] - t[2]) * 1e3, (t[4] - t[3]) * 1e3, (t[5] - t[4]) * 1e3);
		out->prog_name = xstrdup(name);
		if (cache && (err = probe_cache_put(cache, key, out)) != 0)
			wr_debug("probe cache %s: cannot store %s: %s", opt->cache->dir, name,
				 strerror(-err));
		err = 0;
		if (key)
			shape_add(opt->cache, key, out);
		key = NULL;
		give_site_params(&cg, plan, out);
	}
out:
	free(key);
	cg_end(&cg);
	return err;
}

int codegen_shape(const struct codegen_options *opt, const struct probe_plan *plan,
		  struct codegen_shape *out, struct codegen_args *args, struct diag *diag)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (args)
		memset(args, 0, sizeof(*args));
	err = shape_of(opt, plan, diag, &out->key, args);
	if (err)
		return err;
	out->n_params = llvm.key.n_params;
	memcpy(out->params, llvm.key.params, sizeof(out->params));
	return 0;
}

void codegen_shape_release(struct codegen_shape *s)
{
	free(s->key);
	memset(s, 0, sizeof(*s));
}

/* The key of the object of forms @shapes: theirs, in order. */
static char *forms_key(const struct codegen_shape *const *shapes, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "forms %zu\n", n);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "form %zu\n%s\n", i, shapes[i]->key);
	return strbuf_detach(&sb);
}

/* Compile the object of lower_forms() for @plans into @out. */
static int compile_forms(const struct codegen_options *opt, const struct probe_plan *const *plans,
			 size_t n, struct diag *diag, struct bpf_blob *out)
{
	struct cg cg = { 0 };
	char name[32];
	int err;

	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, (int)getpid(), plans[0]->probe_id);
	err = cg_begin(&cg, opt, plans[0]->name ? plans[0]->name : name);
	if (err)
		goto out;
	for (int again = 0; again < 2; again++) {
		if (again && (err = cg_begin(&cg, opt, plans[0]->name ? plans[0]->name : name)) != 0)
			goto out;
		cg.no_frame_copies = again;
		cg.stack_quiet = !again;
		open_function(&cg, opt, plans[0], diag, name);
		cg.n_forms = (unsigned)n;
		err = lower_forms(&cg, plans, n);
		if (!err && cg.llvm_errors)
			err = -WR_ECODEGEN;
		if (err)
			goto out;
		close_function(&cg);
		err = verify_and_optimise(&cg);
		if (!err)
			err = emit(&cg, out);
		if (!stack_retry(&cg, err))
			break;
		cg_end(&cg);
	}
	if (!err)
		out->prog_name = xstrdup(name);
out:
	cg_end(&cg);
	return err;
}

int codegen_forms(const struct codegen_options *opt, const struct probe_plan *const *plans,
		  const struct codegen_shape *const *shapes, size_t n, struct bpf_blob *out,
		  struct diag *diag)
{
	char *key = forms_key(shapes, n), name[32];
	const struct shape *known = opt->cache ? shape_find(opt->cache, key) : NULL;
	struct probe_cache *cache = opt->cache ? disk_cache(opt->cache) : NULL;
	double t0 = thread_cpu_seconds();
	int err = 0;

	memset(out, 0, sizeof(*out));
	snprintf(name, sizeof(name), WR_PROBE_NAME_FMT, (int)getpid(), plans[0]->probe_id);
	if (known) {
		blob_copy(out, &known->blob);
		out->origin = BPF_BLOB_SHAPE;
	} else if (cache && probe_cache_get(cache, key, name, out) == 0) {
		out->origin = BPF_BLOB_DISK_CACHE;
	} else {
		int put;

		err = compile_forms(opt, plans, n, diag, out);
		if (!err && cache && (put = probe_cache_put(cache, key, out)) != 0)
			wr_debug("probe cache %s: cannot store the forms of %s: %s", opt->cache->dir,
				 out->prog_name, strerror(-put));
	}
	if (!err && !known && opt->cache) {
		shape_add(opt->cache, key, out);
		key = NULL;
	}
	free(key);
	if (!err)
		wr_debug("codegen: one program for %zu forms (%s) in %.1f ms of CPU time", n,
			 out->origin == BPF_BLOB_SHAPE ? "reused" : out->origin == BPF_BLOB_DISK_CACHE
			 ? "from the probe cache" : "compiled", (thread_cpu_seconds() - t0) * 1e3);
	out->site_table = true;
	return err;
}

int codegen_eval(const struct probe_plan *plan, const struct ast_expr *const *e, size_t n,
		 struct diag *diag, struct codegen_const *out)
{
	struct codegen_options opt = { .transport = WR_TRANSPORT_RINGBUF };
	struct cg cg = { 0 };
	int err;

	memset(out, 0, n * sizeof(*out));
	err = cg_begin(&cg, &opt, "expression");
	if (err)
		goto out;
	cg_aim(&cg, &opt, plan, diag);
	cg.fn = add_probe_function(&cg, wr_own_names[WR_OWN_EVAL_FN]);
	add_debug_info(&cg, cg.fn, wr_own_names[WR_OWN_EVAL_FN]);
	lower_eval_begin(&cg);
	for (size_t i = 0; i < n && !err; i++) {
		struct cg_value v;

		err = cg_lower_expr(&cg, e[i], &v);
		if (!err && v.kind == CG_VALUE && !v.lvalue && !v.optimized_out &&
		    cg_constant(v.v, &out[i].value))
			out[i].type = v.dt;
	}
	lower_eval_end(&cg);
out:
	cg_end(&cg);
	return err;
}
