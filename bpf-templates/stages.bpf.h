/* stages.bpf.h - where a hit's time goes inside BPF: in a build
 * configured --enable-stage-timing (WR_STAGE_TIMING), each stage of a hit
 * adds the time since the last stage ended to its own counter in the
 * per-CPU map wr_stage_ns; otherwise every mark is nothing.
 *
 * A section of wraith.bpf.c, included by it alone, after maps.bpf.h.
 *
 * A mark closes a stage: stage_mark(S) charges the time since the last
 * mark to S, so the marks cut a hit into consecutive segments, across the
 * tail call and the bpf_loop() callbacks alike (the probe and its step
 * program run on one CPU without migrating).  wr_event_begin() starts a
 * hit with stage_start() and at once closes the stage `timer`: that is
 * one mark's own cost (a clock read and a map lookup), which every other
 * stage's figure holds once per mark too.  bench/run.py --only stages
 * reads the map by name (bpftool prints each stage by its field name) and
 * takes the timer's cost off each mark.  The map exists only in this
 * build, so the base object and every probe object share it as they share
 * the maps protocol/contract.h lists (runtime/probes.c: by name).
 */

#ifdef WR_STAGE_TIMING

/* The stages, in the order a hit meets them. */
#define WR_STAGES(X)                                                                     \
	X(timer)         /* one mark: what each figure holds once per mark */          \
	X(prologue)      /* the process filter and the script's gate */                \
	X(header)        /* the buffer, the state, the hit counter, the header */      \
	X(statements)    /* the probe's statements (a bt: reserve, registers) */       \
	X(end)           /* the end of the probe up to its tail call */                \
	X(tail_call)     /* the tail call into the step program */                     \
	X(step_setup)    /* the walk's memory of the last event's frame rule */        \
	X(proc_lookup)   /* the process's mappings (kept slot or hash, then array) */  \
	X(walk_replay)   /* a whole walk taken from the last one, or its check (and */ \
	                 /* the uretprobe trampoline and stack top for the long way) */ \
	X(frame_memo)    /* a frame at the walk's previous address */                  \
	X(frame_cache)   /* a frame found in the frame cache */                        \
	X(module_search) /* a cache miss: the mapping's binary search */               \
	X(row_search)    /* a cache miss: the module's row search */                   \
	X(miss_fill)     /* a cache miss: the rule's lookup, the cache's fill */       \
	X(stack_copy)    /* a copy of the user stack into the walk's buffer */         \
	X(rule_step)     /* the rule step (unwind/step.h), reads from the copy */      \
	X(plain_run)     /* a run of recursion unwound in one go */                    \
	X(walk_keep)     /* a walk kept for the next one to replay */                  \
	X(finish)        /* the end of each slot */                                    \
	X(count_stack)   /* `count bt`: the stack's counter (and first store) */       \
	X(stack_attach)  /* the copy of the stack for userspace */                     \
	X(output)        /* sending the event */

enum wr_stage {
#define WR_STAGE_ID_(name) WR_STAGE_##name,
	WR_STAGES(WR_STAGE_ID_)
#undef WR_STAGE_ID_
	WR_STAGE_COUNT_
};

struct wr_stage_time {
	__u64 ns; /* time charged to the stage */
	__u64 n;  /* marks of it */
};

/* One CPU's counters: named fields, so that bpftool names each stage. */
struct wr_stage_times {
	__u64 last; /* the last mark's time */
#define WR_STAGE_FIELD_(name) struct wr_stage_time name;
	WR_STAGES(WR_STAGE_FIELD_)
#undef WR_STAGE_FIELD_
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wr_stage_times);
} wr_stage_ns SEC(".maps");

/* Charge the time since the last mark to @stage (a constant), or with
 * WR_STAGE_COUNT_ only start counting from now. */
WR_INLINE void stage_mark(__u32 stage)
{
	__u32 zero = 0;
	struct wr_stage_times *t = bpf_map_lookup_elem(&wr_stage_ns, &zero);
	struct wr_stage_time *s;
	__u64 now;

	if (!t)
		return;
	now = bpf_ktime_get_ns();
	if (stage < WR_STAGE_COUNT_) {
		s = (struct wr_stage_time *)(&t->last + 1) + stage;
		s->ns += now - t->last;
		s->n++;
	}
	t->last = now;
}

#define STAGE(name) stage_mark(WR_STAGE_##name)
#define STAGE_START() stage_mark(WR_STAGE_COUNT_)

#else

#define STAGE(name) ((void)0)
#define STAGE_START() ((void)0)

#endif
