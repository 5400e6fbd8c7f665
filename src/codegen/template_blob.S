/* template_blob.S - the BPF probe templates' bitcode (one per transport
 * and --fault-in setting) and the four base objects, embedded read-only.
 * WR_PROBE_* and WR_BASE_* are their paths under bpf-templates/ (set by
 * Makefile.am). */
#define WR_BLOB(sym, path)	\
	.balign 16;		\
	.globl sym##_start;	\
sym##_start:			\
	.incbin path;		\
	.globl sym##_end;	\
sym##_end:			\
	.byte 0

	.section .rodata.wr_template_bc,"a",@progbits
WR_BLOB(wr_probe_ringbuf_0, WR_PROBE_RINGBUF_0)
WR_BLOB(wr_probe_ringbuf_1, WR_PROBE_RINGBUF_1)
WR_BLOB(wr_probe_perf_0, WR_PROBE_PERF_0)
WR_BLOB(wr_probe_perf_1, WR_PROBE_PERF_1)

/* The base objects, one per transport, and lean ones (see Makefile.am). */
WR_BLOB(wr_base_ringbuf, WR_BASE_RINGBUF)
WR_BLOB(wr_base_perf, WR_BASE_PERF)
WR_BLOB(wr_base_ringbuf_lean, WR_BASE_RINGBUF_LEAN)
WR_BLOB(wr_base_perf_lean, WR_BASE_PERF_LEAN)
	.section .note.GNU-stack,"",@progbits
