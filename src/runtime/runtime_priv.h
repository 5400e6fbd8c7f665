/* runtime_priv.h - the inside of struct runtime, for the files of
 * src/runtime only: runtime.c (the base object), probes.c (probe objects,
 * links, the start gate), reader.c (the event reader), counts.c (counters,
 * counted stacks) and unwind_maps.c (the unwinder's rows and mappings in
 * the kernel).
 *
 * Layer rule: included only by files in src/runtime/.
 */
#ifndef WRAITH_RUNTIME_RUNTIME_PRIV_H
#define WRAITH_RUNTIME_RUNTIME_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/contract.h"
#include "protocol/wire.h"
#include "runtime/runtime.h"

struct bpf_object;
struct ring_buffer;
struct perf_buffer;
struct rt_object;
struct ulink;

struct runtime {
	struct rt_options opt;
	struct bpf_object *base;
	struct ring_buffer *ringbuf;
	struct perf_buffer *perfbuf;
	int epoll_fd;            /* the reader's descriptor and the tick timer */
	int timer_fd;
	uint64_t perf_lost;
	rt_event_fn fn;          /* valid during runtime_poll */
	void *fn_ctx;
	unsigned polled;         /* events handed over in this runtime_poll */
	double poll_until;       /* when this runtime_poll stops handing over */
	size_t warm_left;        /* ring bytes still to warm (warm_slice) */
	int warm_fd;             /* the program that warms it (the base object owns it) */
	bool idle;               /* the last runtime_poll read no events */
	struct rt_probe *probes; /* every loaded probe */
	struct rt_object *objects; /* what they share */
	struct wr_probe_stats *stats; /* wr_stats, mapped: each CPU's counters in a row */
	size_t stats_len;
	uint64_t *gate;          /* wr_gate, mapped: when each probe id starts */
	int ncpu;                /* possible CPUs, as many rows in wr_stats */
	int proc_maps_fd;
	int proc_slot_fd;
	uint32_t proc_slot_tgid[WR_MAX_PROCS]; /* the process in each slot, 0 = free */
	int rows_outer_fd;
	int rules_outer_fd;
	int counts_fd;
	int stacks_fd;
	struct wr_count_slot *count_slots; /* wr_count_slots, mapped (entry 0: slots per CPU) */
	size_t count_slots_len;
	uint32_t count_per_cpu;  /* slots each CPU has in it (0: none) */
	struct bpf_link *member_links[3]; /* -t: the tracepoints of members.c */
	uint64_t *members;       /* -t: wr_members, mapped (a bit a tgid) */
	size_t member_words;     /* its words, sized to pid_max */
	struct wr_outer_recipe *outer_slots; /* wr_outer_slots, mapped on first need */
	struct ulink *closing;   /* links detached, to close (runtime_settle) */
	size_t n_closing, cap_closing;
};

/* -t: the words of wr_members the kernel's pid_max needs (members.c). */
size_t rt_member_words(void);

/* Processes whose mappings can be installed (rt_options.max_procs, at
 * most WR_MAX_PROCS): the size of the process maps. */
uint32_t runtime_proc_capacity(const struct runtime *rt);

/* ---- runtime.c: the base object ---- */

/* The verifier's log buffer, for the base object and each probe object. */
#define VERIFIER_LOG_SIZE (4u << 20)

struct bpf_map;
struct bpf_program;

/* Log libbpf's failure @err (-errno) at @what; returns -WR_EPERM for a
 * permission error, else -WR_ELOAD. */
int rt_kernel_error(int err, const char *what);
/* The base object's map or program @id (protocol/contract.h), or NULL;
 * borrowed from the base object. */
struct bpf_map *rt_base_map(struct runtime *rt, enum wr_map_id id);
struct bpf_program *rt_base_program(struct runtime *rt, enum wr_program_id id);
/* The descriptor of the base object's map @id, or -1. */
int rt_map_fd(struct runtime *rt, enum wr_map_id id);
/* The verifier's reason for refusing a program, from the end of its
 * @log.  Caller frees. */
char *rt_verifier_reason(const char *log);

/* ---- reader.c: the event reader ---- */

/* Open the reader of rt->opt.transport and its descriptor for front ends.
 * Returns 0 or a -WR_* error (message logged); rt_reader_close() undoes
 * what was made either way. */
int rt_reader_open(struct runtime *rt);
/* Plan the ring's warm-up, which runtime_poll() does while it is idle. */
void rt_reader_plan_warmup(struct runtime *rt);
void rt_reader_close(struct runtime *rt);

#endif
