/* session_kernel.c - the kernel side of a session (the base object, its
 * maps and the unwinder's programs: runtime/runtime.h), generated and
 * loaded on a thread of its own while the target opens and the first
 * probes compile, and waited for when the first probe is to be loaded.
 */
#include "tracer/session_priv.h"
#include "codegen/codegen.h"
#include "runtime/runtime.h"
#include "tracer/target.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct kernel_start {
	pthread_t thread;
	bool threaded;
	struct rt_options ro;
	struct runtime *rt;
	int err;
	double seconds, cpu_seconds;
	struct wr_log_deferred log;
};

static void *kernel_start_main(void *arg)
{
	struct kernel_start *ks = arg;
	struct codegen_options co = { .transport = ks->ro.transport, .fault_in = ks->ro.fault_in,
				      .base_omits = ks->ro.base_omits };
	struct bpf_blob base = { 0 };
	double t0 = now_seconds(), c0 = thread_cpu_seconds();

	wr_log_defer(&ks->log);
	wr_debug("base object: %s%s%s", (co.base_omits & WR_BASE_NO_COUNT) &&
		 (co.base_omits & WR_BASE_NO_VALUES) ? "lean (no count bt, no frame values)" : "full",
		 co.fault_in || (co.base_omits & WR_BASE_NO_STEP) ? ", without the step program" : "",
		 !co.fault_in && !(co.base_omits & (WR_BASE_NO_STEP | WR_BASE_NO_VALUES)) &&
		 (co.base_omits & WR_BASE_NO_WALKS) ? ", without outer frames' whole walks" : "");
	ks->err = codegen_base(&co, &base);
	if (!ks->err)
		ks->err = runtime_new(&ks->ro, &base, &ks->rt);
	bpf_blob_release(&base);
	ks->seconds = now_seconds() - t0;
	ks->cpu_seconds = thread_cpu_seconds() - c0;
	wr_log_defer(NULL);
	return NULL;
}

int session_start(struct session *s)
{
	struct kernel_start *ks;

	if (s->rt || s->kstart || s->opt.dry_run)
		return 0;
	ks = xcalloc(1, sizeof(*ks));
	ks->ro.transport = session_wire_transport(s->opt.transport);
	ks->ro.fault_in = s->opt.fault_in;
	ks->ro.buffer_bytes = s->opt.buffer_bytes;
	ks->ro.stack_entries = s->opt.stack_entries;
	ks->ro.base_omits = s->base_omits;
	ks->ro.cache_dir = s->opt.probe_cache_dir;
	/* With -p the one process is all there is (target.c adds no other). */
	ks->ro.max_procs = s->opt.pid > 0 ? 1 : 0;
	/* -t PATH alone (target_has_members(); the target opens meanwhile) */
	ks->ro.members = s->opt.pid <= 0 && s->opt.path;
	/* Made here, so that unwind tables can go in while the base object
	 * loads (session_kernel_wait()); else the base object makes them. */
	if (!runtime_cfi_outer_new(s->cfi_outer))
		ks->ro.cfi_outer = s->cfi_outer;
	s->kstart = ks;
	ks->threaded = thread_start_unsignalled(&ks->thread, kernel_start_main, ks);
	if (!ks->threaded)
		kernel_start_main(ks);
	return 0;
}

void session_kernel_abandon(struct session *s)
{
	struct kernel_start *ks = s->kstart;

	if (!ks)
		return;
	if (ks->threaded)
		pthread_join(ks->thread, NULL);
	wr_log_replay(&ks->log);
	runtime_free(ks->rt);
	free(ks);
	s->kstart = NULL;
	runtime_cfi_maps_close(s->cfi_outer);
}

int session_kernel_wait(struct session *s)
{
	struct kernel_start *ks = s->kstart;
	int err = 0;

	if (!ks && s->rt) {
		/* The kernel side is up; a script with `bt` after scripts
		 * without one (the shell, --batch) has its unwind tables put
		 * in now. */
		if (!target_cfi_wanted(s->target))
			return 0;
	} else if (!ks && s->opt.dry_run) {
		return 0;
	} else {
		if (!ks) {
			session_start(s);
			ks = s->kstart;
		}
		/* While the kernel thread loads the base object (the verifier,
		 * tens of ms), the unwind tables go in beside it. */
		if (ks->ro.cfi_outer && s->target)
			target_install_early(s->target, s->cfi_outer);
		if (ks->threaded)
			pthread_join(ks->thread, NULL);
		runtime_cfi_maps_close(s->cfi_outer);
		wr_log_replay(&ks->log);
		wr_debug("kernel side (maps, unwinder) ready in %.1f ms (%.1f ms of CPU)",
			 ks->seconds * 1e3, ks->cpu_seconds * 1e3);
		s->rt = ks->rt;
		err = ks->err;
		free(ks);
		s->kstart = NULL;
	}
	if (!err)
		err = target_install(s->target, s->rt);
	if (err && err != -WR_EPERM)
		wr_error("could not prepare the kernel side of the trace: %s", wr_strerror(err));
	return err;
}
