/* template_blob.S - the BPF template bitcode and the two base objects,
 * embedded read-only.  WR_TEMPLATE_BC, WR_BASE_RINGBUF and WR_BASE_PERF are
 * their paths under bpf-templates/ (set by Makefile.am). */
	.section .rodata.wr_template_bc,"a",@progbits
	.balign 16
	.globl wr_template_bc_start
wr_template_bc_start:
	.incbin WR_TEMPLATE_BC
	.globl wr_template_bc_end
wr_template_bc_end:
	.byte 0

/* The base objects, one per transport (see Makefile.am). */
	.balign 16
	.globl wr_base_ringbuf_start
wr_base_ringbuf_start:
	.incbin WR_BASE_RINGBUF
	.globl wr_base_ringbuf_end
wr_base_ringbuf_end:
	.balign 16
	.globl wr_base_perf_start
wr_base_perf_start:
	.incbin WR_BASE_PERF
	.globl wr_base_perf_end
wr_base_perf_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
