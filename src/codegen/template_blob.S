/* template_blob.S - the BPF template bitcode, embedded read-only.
 * WR_TEMPLATE_BC is the path of bpf-templates/wraith.bc (set by Makefile.am). */
	.section .rodata.wr_template_bc,"a",@progbits
	.balign 16
	.globl wr_template_bc_start
wr_template_bc_start:
	.incbin WR_TEMPLATE_BC
	.globl wr_template_bc_end
wr_template_bc_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
