/* wraith.bpf.c - the fixed BPF machinery every generated probe links with.
 *
 * Layer rule: bpf-templates/ is restricted C for clang -target bpf; of
 * wraith's own headers it includes only those written for both sides:
 * protocol/wire.h (layouts), protocol/contract.h (names) and
 * unwind/step.h (the unwinder's step).
 *
 * This file is restricted C compiled by clang-19 to LLVM bitcode at build
 * time and embedded in wraith, once per transport and --fault-in setting
 * (WR_PROBE_TRANSPORT, WR_PROBE_FAULT_IN: clang folds them).  The IR
 * generator (src/codegen/) parses the bitcode, adds one function per probe
 * that calls the wr_* entry points, sets wr_cfg_has_bt, and optimises the
 * whole module, so these always_inline helpers end up inside each probe
 * program.  Everything that can be written in C is written in C: the
 * event buffer, print items, and the unwinder with its tail-called step
 * program.  Layouts come from src/protocol/wire.h, shared with userspace.
 *
 * An event is assembled in a per-CPU buffer.  Print items are appended as
 * statements run; a `bt` reserves its whole item (header + requested depth
 * frames) at its place in the event and leaves a per-CPU slot with the
 * probe's registers.  When the probe ends with slots pending, one tail call
 * hands the event to wr_bt_step, which unwinds every frame of every slot in
 * one bpf_loop() and outputs the event; otherwise the probe outputs it.
 * Either way it goes out once, never split or duplicated.
 *
 * This file is the one translation unit: it includes the sections, one
 * concern each, then holds the end of an event, which joins them (the
 * walks finished, the stack copy attached, stacks counted, the event
 * sent):
 *   maps.bpf.h      configuration, maps, the kernel structures read
 *   stages.bpf.h    where a hit's time goes (--enable-stage-timing only)
 *   members.bpf.h   -t: the target's processes, kept by tracepoints
 *   reads.bpf.h     reads of user memory and of the kernel's values
 *   events.bpf.h    event assembly: begin, items, arguments, errors
 *   walk.bpf.h      copies of the memory a value's printer reads (containers)
 *   unwind.bpf.h    the unwinder: slots, searches, rule step, frame loop
 *   handover.bpf.h  the copy of the stack userspace finishes walks from
 *   outer.bpf.h     what outer frames' values point to, by the chain's recipe
 *   counts.bpf.h    `count bt`
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "protocol/contract.h"
#include "protocol/wire.h"

#define WR_INLINE static __attribute__((always_inline)) inline

/* Keep the compiler from moving arithmetic on @v above a NULL check: the
 * verifier rejects pointer arithmetic on a maybe-NULL map value. */
#define WR_BARRIER_VAR(v) asm volatile("" : "+r"(v))

/* wr_bt_state.proc_slot before the event's process was looked up. */
#define WR_PROC_UNKNOWN (WR_PROC_NONE - 1)
/* Entry points the generator calls: external so they survive -O2 here; the
 * generator makes them internal and they are inlined into each probe.
 * WR_SUBPROG entry points, called once per print argument, stay BPF
 * subprograms instead: inlined, a probe with hundreds of prints outgrows
 * BPF's 16-bit jumps.  They are global functions, which the verifier checks
 * once on their own: what it learns inside one never flows back into the
 * probe, where it would split the states of every later statement (a
 * probe of 100 ifs then exceeded the verifier's 1M-instruction budget).
 * That asks for scalar returns and sized pointer arguments, and for NULL
 * checks of every pointer. */
#ifdef WR_BASE_TRANSPORT
/* Built as the base object (maps and the step program), not as bitcode for
 * the generator: nothing calls the entry points. */
#define WR_API static __attribute__((always_inline)) __attribute__((unused)) inline
#define WR_SUBPROG WR_API
#else
#define WR_API __attribute__((always_inline))
#define WR_SUBPROG __attribute__((noinline))
#endif

char _license[] SEC("license") = "GPL";

/* The sections, in the order they build on each other. */
#include "maps.bpf.h"
#include "stages.bpf.h"
#include "members.bpf.h"
#include "reads.bpf.h"
#include "events.bpf.h"
#include "walk.bpf.h"
#include "unwind.bpf.h"
#include "handover.bpf.h"
#include "outer.bpf.h"
#include "counts.bpf.h"

/* ---- sending the event ---- */

/* Wake the consumer only when the ring is filling up.  The kernel's own
 * policy wakes it for every event it has not yet caught up with, and when
 * it keeps up that is every event: the wakeup then runs on the traced
 * thread, which pays for it on every hit.  Below the mark the consumer
 * finds the events on its next timer tick instead (runtime/reader.c).
 * Only the event that crosses the mark wakes it: a consumer behind the mark is
 * awake and reading already (its epoll descriptor stays ready while data
 * is left), and waking it again for every event above the mark made the
 * traced thread pay exactly when the consumer fell behind.  A crossing two
 * CPUs both miss is caught by the next tick. */
WR_INLINE __u64 ringbuf_wakeup(__u32 size)
{
	__u64 avail = bpf_ringbuf_query(&wr_ringbuf, BPF_RB_AVAIL_DATA);
	__u64 mark = bpf_ringbuf_query(&wr_ringbuf, BPF_RB_RING_SIZE) / WR_RING_WAKE_DIVISOR;

	return avail < mark && avail + size >= mark ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Send the event, unless it holds nothing to send: only `count bt`
 * stacks (counted already), or no items at all from a probe whose
 * conditions chose to emit none (counted as filtered). */
WR_INLINE void output(void *ctx, __u8 *buf)
{
	struct wr_event_header *h = (struct wr_event_header *)buf;
	struct wr_probe_stats *ps;
	struct wr_bt_state *st;
	__u32 size, zero = 0;
	long ret;

	st = uses_state() ? bpf_map_lookup_elem(&wr_bt_state, &zero) : 0;
	if (st && st->n_count)
		cut_count_items(buf, st);
	if (h->n_items == 0 && (h->flags & WR_EVENT_F_DROP_EMPTY)) {
		ps = probe_stats(h->probe_id);
		if (ps && (!st || !st->n_count))
			ps->filtered++;
		if (wr_cfg_fault_in && st)
			st->holder = 0; /* --fault-in: the buffer is free again */
		return;
	}
	if (st && st->n_slots)
		trim_last_bt(buf, st);
	if (!h->timestamp_ns) /* a probe that only counts (wr_cfg_sends): never */
		h->timestamp_ns = bpf_ktime_get_ns();
	size = sizeof(*h) + h->payload_len;

	if (size > WR_EVENT_MAX)
		size = WR_EVENT_MAX;
	if (wr_cfg_transport == WR_TRANSPORT_RINGBUF)
		ret = bpf_ringbuf_output(&wr_ringbuf, buf, size, ringbuf_wakeup(size));
	else
		ret = bpf_perf_event_output(ctx, &wr_perfbuf, BPF_F_CURRENT_CPU, buf, size);
	if (ret) {
		ps = probe_stats(h->probe_id);
		if (ps)
			ps->lost++;
	}
	if (h->flags & WR_EVENT_F_TRUNCATED) {
		ps = probe_stats(h->probe_id);
		if (ps)
			ps->truncated++;
	}
	if (wr_cfg_fault_in && st)
		st->holder = 0;
	STAGE(output);
}

/* ---- after the walks ---- */

/* Slot @i of the event once the walks are done.  A walk still pending
 * stops: where the process has no mappings here (wraith does not trace
 * it), at its frame 0, handed over to userspace as a frame in no known
 * mapping is; otherwise the loop ran out (an internal error).  The first
 * slot whose walk ended and that wants the event's one stack copy
 * (attach_stack()) is noted in st->cur, the backtrace items before it in
 * st->stack_bt; a `count bt` stack is counted.
 * Under bpf_loop(), like the walks: the verifier checks one slot, not
 * each slot once for every way the slots before it went. */
WR_INLINE long finish_one(__u32 i, __u8 *buf, struct wr_bt_state *st)
{
	struct wr_probe_stats *ps;
	struct wr_bt_slot *s;
	int ran_out = 0;

	if (i >= st->n_slots || i >= WR_BT_MAX_SLOTS)
		return 1;
	s = &st->slot[i];
	if (s->flags & WR_SLOT_F_PENDING) {
		if (st->proc_slot == WR_PROC_NONE) { /* step_all() found no mappings */
			emit_frame(buf, s, 0, 0);
			slot_finish(buf, s, WR_BT_OFFSETS_UNAVAILABLE, 0);
		} else {
			slot_finish(buf, s, WR_BT_INTERNAL_ERROR, 0);
			ran_out = 1;
		}
	}
	if (slot_counts(s)) {
		ps = probe_stats(((struct wr_event_header *)buf)->probe_id);
		STAGE(finish);
		if (ps)
			count_stack(buf, st, s, ps);
		STAGE(count_stack);
	} else if (st->cur >= WR_BT_MAX_SLOTS) {
		if (!ran_out && (handed_over(s) || has_values(buf, s)))
			st->cur = i;
		else
			st->stack_bt++;
	}
	return 0;
}

static long finish_slot(__u32 i, void *arg)
{
	struct step_ctx *c = arg;

	return finish_one(i, c->buf, c->st);
}

/* The same without a context on the probe's stack (--fault-in: see
 * step_frame_self()). */
static long finish_slot_self(__u32 i, void *arg)
{
	struct wr_bt_state *st;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 1;
	return finish_one(i, buf, st);
}

/* Every remaining frame of every pending slot, in one bpf_loop() (the
 * verifier checks the frame once, and no frame pays for a tail call), then
 * every slot's end in another, then the event goes out. */
WR_INLINE void step_all(void *ctx, __u8 *buf, struct wr_bt_state *st)
{
	struct wr_walk_state *walks = 0;
	struct wr_proc_maps *pm;
	struct step_ctx c;
	__u32 zero = 0;
	long sh_off;

	st->memo_key = 0; /* nothing remembered from another event's walk */
	st->memo_plain = 0;
	STAGE(step_setup);
	pm = proc_maps_of(buf, st);
	if (!pm)
		st->proc_slot = WR_PROC_NONE; /* what finish_one() goes by */
	STAGE(proc_lookup);
	/* Not on the stack of a probe that unwinds itself (--fault-in folds it) */
	c.buf = buf;
	c.st = st;
	c.pm = pm;
	/* The process's mappings are checked here, not in the loop: a check
	 * there made the verifier walk the whole frame step once with them
	 * unknown, once without and once with them.  Each slot: its frames,
	 * each at most twice (a run of recursion that could not start, then
	 * the general path), plus one iteration to move past it.  A lone
	 * slot whose walk replays the last one is done before the loop: a
	 * loop's callback, its call and its return, costs 10-15 ns on a host
	 * whose every return goes through a thunk (SRSO safe RET). */
	if (pm && !wr_cfg_fault_in && st->n_slots == 1 && walk_replay(buf, st, &st->slot[0], pm))
		STAGE(walk_replay);
	else if (pm && wr_cfg_fault_in)
		bpf_loop(WR_BT_MAX_SLOTS * (2 * WR_BT_MAX_DEPTH + 1), step_frame_self, 0, 0);
	else if (pm)
		bpf_loop(WR_BT_MAX_SLOTS * (2 * WR_BT_MAX_DEPTH + 1), step_frame, &c, 0);
	st->cur = WR_BT_MAX_SLOTS; /* no slot has the stack copy yet */
	st->stack_bt = 0;
	/* One iteration a slot (not one more to find the end: see step_one()),
	 * none for a lone one. */
	if (!wr_cfg_fault_in && st->n_slots == 1)
		finish_one(0, buf, st);
	else if (wr_cfg_fault_in)
		bpf_loop(st->n_slots, finish_slot_self, 0, 0);
	else
		bpf_loop(st->n_slots, finish_slot, &c, 0);
	STAGE(finish);
	/* Read back from memory, which the slot number went through: one
	 * state for the verifier here, however the slots ended. */
	if (st->cur < WR_BT_MAX_SLOTS) {
		sh_off = attach_stack(ctx, buf, st, &st->slot[st->cur]);
		if (WR_STEP_VALUES && copy_outer(buf, &st->slot[st->cur & (WR_BT_MAX_SLOTS - 1)], sh_off))
			walks = bpf_map_lookup_elem(&wr_walk_states, &zero);
	}
	STAGE(stack_attach);
	if (WR_STEP_OUTER_WALKS && walks) {
		/* outer frames' whole walks: a program of their own, loaded
		 * only for a session with `bt full`, whose check the other
		 * sessions' starts do without */
		bpf_tail_call(ctx, &wr_progs, WR_TAIL_OUTER_WALKS);
		/* not loaded: the walks are left out (their values show short) */
		wr_item_close((struct wr_event_buf *)buf, (long)walks->walk_item);
	}
	output(ctx, buf);
}

/* End the probe: hand pending backtraces to the step program, or output.
 * A sleepable probe (--fault-in) unwinds itself: the verifier lets
 * sleepable programs use only array, hash, ring-buffer and storage maps,
 * so no tail call through a program array (nor a perf event array). */
WR_API int wr_event_end(void *ctx, __u8 *buf)
{
	struct wr_bt_state *st;
	struct wr_probe_stats *ps;
	__u32 zero = 0;
	int pending;

	STAGE(statements);
	if (!wr_cfg_bt_slots || (wr_cfg_fault_in && !wr_cfg_has_bt)) {
		output(ctx, buf); /* no slot can be pending */
		return 0;
	}
	st = bpf_map_lookup_elem(&wr_bt_state, &zero);
	pending = st && any_pending(st);
	STAGE(end);
	if (pending) {
		if (wr_cfg_fault_in) {
			step_all(ctx, buf, st);
			return 0;
		}
		bpf_tail_call(ctx, &wr_progs, WR_TAIL_STEP);
		/* Only reached when the tail call failed. */
		finish_pending(buf, st, WR_BT_INTERNAL_ERROR);
		ps = probe_stats(((struct wr_event_header *)buf)->probe_id);
		if (ps) {
			ps->bt_errors++;
			ps->count_dropped += st->n_count;
		}
	}
	output(ctx, buf);
	return 0;
}

/* The step program, tail-called by a probe with pending backtraces; only
 * the base objects carry it. */
#ifndef WR_PROBE_TRANSPORT
SEC("uprobe")
int wr_bt_step(void *ctx)
{
	struct wr_bt_state *st;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 0;
	STAGE(tail_call);
	step_all(ctx, buf, st);
	return 0;
}

/* Outer frames' whole walks (outer.bpf.h), tail-called by the step
 * program when a recipe it ran holds some, then the event goes out;
 * loaded only for a session with `bt full` (a lean base object's does
 * nothing: no session that loads it reaches it). */
SEC("uprobe")
int wr_outer_walks(void *ctx)
{
	struct wr_walk_state *ws;
	struct wr_bt_state *st;
	__u32 zero = 0;
	__u8 *buf;

	if (!own_state(&buf, &st))
		return 0;
	ws = bpf_map_lookup_elem(&wr_walk_states, &zero);
	if (WR_STEP_VALUES && ws)
		outer_walks(buf, ws);
	output(ctx, buf);
	return 0;
}
#endif

/* Everything protocol/contract.h lists is defined above: a name the list
 * and the templates spell differently does not build.  (The entry points'
 * parameter counts are checked where the generator parses a template,
 * codegen.c.) */
#define WR_DEFINED_(id, name, ...) _Static_assert(sizeof(&name) != 0, #name " is defined");
WR_ENTRY_POINTS(WR_DEFINED_)
WR_MAPS(WR_DEFINED_)
WR_CONFIG(WR_DEFINED_)
#ifdef WR_BASE_TRANSPORT
WR_PROGRAMS(WR_DEFINED_)
#endif
#undef WR_DEFINED_
