# synthetic.s - hand-written CFI for test_cfi: every DW_CFA_* operation the
# extractor interprets, the rules it must mark unsupported or translate,
# a signal frame, and a hand-made .debug_frame with overlapping FDEs (one
# inside another), a forward CIE reference, a return address column other
# than 16, an FDE for a discarded section (address 0) and an FDE that
# .eh_frame already covers.  Linked with
# `gcc -shared -nostdlib -o libsyn.so synthetic.s`; never executed.

	.text

	.globl syn_basic
	.type syn_basic, @function
	.p2align 4
syn_basic:
	.cfi_startproc
	push %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size syn_basic, .-syn_basic

# remember/restore state around an early return
	.globl syn_state
	.type syn_state, @function
	.p2align 4
syn_state:
	.cfi_startproc
	push %rbx
	.cfi_def_cfa_offset 16
	push %rbp
	.cfi_def_cfa_offset 24
	.cfi_offset %rbp, -24
	test %rdi, %rdi
	je 1f
	.cfi_remember_state
	pop %rbp
	.cfi_def_cfa_offset 16
	.cfi_restore %rbp
	pop %rbx
	.cfi_def_cfa_offset 8
	ret
1:
	.cfi_restore_state
	nop
	pop %rbp
	.cfi_def_cfa_offset 16
	pop %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size syn_state, .-syn_state

# GCC's stack realignment in main: CFA in r10, then *(rbp - 8)
	.globl syn_realign
	.type syn_realign, @function
	.p2align 4
syn_realign:
	.cfi_startproc
	lea 8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	and $-64, %rsp
	pushq -8(%r10)
	push %rbp
	mov %rsp, %rbp
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00	# DW_CFA_expression rbp: breg6 0
	push %r10
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06	# DW_CFA_def_cfa_expression: breg6 -8; deref
	nop
	pop %r10
	.cfi_def_cfa %r10, 0
	pop %rbp
	lea -8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size syn_realign, .-syn_realign

# rbp rules: register, val_offset, far offset, same value, undefined,
# expressions; then the end of the stack (return address undefined)
	.globl syn_rbp
	.type syn_rbp, @function
	.p2align 4
syn_rbp:
	.cfi_startproc
	nop
	.cfi_register %rbp, %rsp
	nop
	.cfi_val_offset %rbp, -8
	nop
	.cfi_register %rbp, %rbx
	nop
	.cfi_offset %rbp, -40000
	nop
	.cfi_same_value %rbp
	.cfi_escape 0x2e, 0x10				# DW_CFA_GNU_args_size 16
	nop
	.cfi_undefined %rbp
	nop
	.cfi_escape 0x16, 0x06, 0x02, 0x77, 0x08	# DW_CFA_val_expression rbp: breg7 8
	nop
	.cfi_register %rbp, %rbp
	nop
	.cfi_undefined %rip
	nop
	.cfi_endproc
	.size syn_rbp, .-syn_rbp

# encodings gas does not pick by itself
	.globl syn_ops
	.type syn_ops, @function
	.p2align 4
syn_ops:
	.cfi_startproc
	nop
	.cfi_escape 0x12, 0x07, 0x7e			# DW_CFA_def_cfa_sf rsp, -2 * -8
	nop
	.cfi_escape 0x13, 0x7d				# DW_CFA_def_cfa_offset_sf -3 * -8
	.cfi_escape 0x11, 0x06, 0x7d			# DW_CFA_offset_extended_sf rbp, -3 * -8
	nop
	.cfi_escape 0x2f, 0x06, 0x02			# DW_CFA_GNU_negative_offset_extended rbp, 2
	nop
	.cfi_escape 0x15, 0x06, 0x7e			# DW_CFA_val_offset_sf rbp, -2 * -8
	nop
	.cfi_escape 0x06, 0x06				# DW_CFA_restore_extended rbp
	.skip 100, 0x90
	.cfi_escape 0x05, 0x06, 0x03			# DW_CFA_offset_extended rbp, 3 * -8
	.skip 300, 0x90
	.cfi_def_cfa_offset 32
	.skip 70000, 0x90
	.cfi_escape 0x0f, 0x03, 0x76, 0x10, 0x06	# DW_CFA_def_cfa_expression: breg6 16; deref
	nop
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size syn_ops, .-syn_ops

# rows without a compact form
	.globl syn_unsup
	.type syn_unsup, @function
	.p2align 4
syn_unsup:
	.cfi_startproc
	nop
	.cfi_def_cfa %rax, 8
	nop
	.cfi_def_cfa %rsp, 0x100000000
	nop
	.cfi_def_cfa %rsp, 8
	.cfi_register %rip, %rax
	nop
	.cfi_val_offset %rip, -8
	nop
	.cfi_escape 0x10, 0x10, 0x02, 0x77, 0x00	# DW_CFA_expression rip: breg7 0
	nop
	.cfi_same_value %rip
	nop
	.cfi_offset %rip, -40000
	nop
	.cfi_restore %rip
	.cfi_escape 0x0f, 0x03, 0x76, 0x10, 0x30	# DW_CFA_def_cfa_expression: breg6 16; lit0
	nop
	.cfi_escape 0x0f, 0x04, 0x76, 0x10, 0x06, 0x06	# DW_CFA_def_cfa_expression: breg6 16; deref; deref
	nop
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size syn_unsup, .-syn_unsup

# a signal trampoline, glibc style: the FDE starts at a nop before it
	.p2align 4
syn_sigframe:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06	# CFA: breg7 160; deref
	nop
	.globl syn_sigreturn
	.type syn_sigreturn, @function
syn_sigreturn:
	mov $15, %eax
	syscall
	.cfi_endproc
	.size syn_sigreturn, .-syn_sigreturn

# described only by the .debug_frame below
	.globl syn_dbg1
	.type syn_dbg1, @function
	.p2align 4
syn_dbg1:
	push %rbp
	nop
	pop %rbp
	ret
syn_dbg1_end:
	.size syn_dbg1, .-syn_dbg1

	.globl syn_dbg2
	.type syn_dbg2, @function
	.p2align 4
syn_dbg2:
	push %rbp
	nop
	pop %rbp
	ret
syn_dbg2_end:
	.size syn_dbg2, .-syn_dbg2

	.globl syn_dbg3
	.type syn_dbg3, @function
	.p2align 4
syn_dbg3:
	nop
	nop
	ret
syn_dbg3_end:
	.size syn_dbg3, .-syn_dbg3

	.globl syn_dbg4
	.type syn_dbg4, @function
	.p2align 4
syn_dbg4:
	nop
	ret
syn_dbg4_end:
	.size syn_dbg4, .-syn_dbg4

	.section .debug_frame, "", @progbits
.Lcie1:
	.long .Lcie1_end - .Lcie1_id
.Lcie1_id:
	.long 0xffffffff
	.byte 1				# version
	.string ""			# augmentation
	.uleb128 1			# code alignment
	.sleb128 -8			# data alignment
	.byte 16			# return address column
	.byte 0x0c, 0x07, 0x08		# DW_CFA_def_cfa rsp 8
	.byte 0x90, 0x01		# DW_CFA_offset rip, 1 * -8
	.p2align 3, 0
.Lcie1_end:

# syn_dbg1: rsp+16 after its push
	.long .Lfa_end - .Lfa_id
.Lfa_id:
	.long .Lcie1
	.quad syn_dbg1
	.quad syn_dbg1_end - syn_dbg1
	.byte 0x41			# DW_CFA_advance_loc 1
	.byte 0x0e, 0x10		# DW_CFA_def_cfa_offset 16
	.byte 0x86, 0x02		# DW_CFA_offset rbp, 2 * -8
	.p2align 3, 0
.Lfa_end:

# overlaps syn_dbg1's FDE, then covers up to syn_dbg2's end: rsp+24
	.long .Lfb_end - .Lfb_id
.Lfb_id:
	.long .Lcie1
	.quad syn_dbg1 + 2
	.quad syn_dbg2_end - syn_dbg1 - 2
	.byte 0x0e, 0x18		# DW_CFA_def_cfa_offset 24
	.p2align 3, 0
.Lfb_end:

# inside syn_dbg1's first FDE, which wins
	.long .Lff_end - .Lff_id
.Lff_id:
	.long .Lcie1
	.quad syn_dbg1 + 1
	.quad 1
	.byte 0x0c, 0x00, 0x08		# DW_CFA_def_cfa rax 8
	.p2align 3, 0
.Lff_end:

# syn_dbg3, whose CIE comes later in the section
	.long .Lfc_end - .Lfc_id
.Lfc_id:
	.long .Lcie2
	.quad syn_dbg3
	.quad syn_dbg3_end - syn_dbg3
	.byte 0x42			# DW_CFA_advance_loc 2
	.byte 0x0c, 0x07, 0x08		# DW_CFA_def_cfa rsp 8
	.p2align 3, 0
.Lfc_end:

# syn_basic is in .eh_frame already, which wins
	.long .Lfd_end - .Lfd_id
.Lfd_id:
	.long .Lcie1
	.quad syn_basic
	.quad 4
	.byte 0x0c, 0x00, 0x08		# DW_CFA_def_cfa rax 8
	.p2align 3, 0
.Lfd_end:

# a function the linker discarded: address 0
	.long .Lfe_end - .Lfe_id
.Lfe_id:
	.long .Lcie1
	.quad 0
	.quad 16
	.p2align 3, 0
.Lfe_end:

.Lcie2:
	.long .Lcie2_end - .Lcie2_id
.Lcie2_id:
	.long 0xffffffff
	.byte 1
	.string ""
	.uleb128 1
	.sleb128 -8
	.byte 16
	.byte 0x0c, 0x06, 0x10		# DW_CFA_def_cfa rbp 16
	.byte 0x90, 0x01		# DW_CFA_offset rip, 1 * -8
	.byte 0x86, 0x02		# DW_CFA_offset rbp, 2 * -8
	.p2align 3, 0
.Lcie2_end:

# the return address in column 5 instead of 16
.Lcie3:
	.long .Lcie3_end - .Lcie3_id
.Lcie3_id:
	.long 0xffffffff
	.byte 1
	.string ""
	.uleb128 1
	.sleb128 -8
	.byte 5				# return address column
	.byte 0x0c, 0x07, 0x08		# DW_CFA_def_cfa rsp 8
	.byte 0x85, 0x01		# DW_CFA_offset r5, 1 * -8
	.p2align 3, 0
.Lcie3_end:

	.long .Lfg_end - .Lfg_id
.Lfg_id:
	.long .Lcie3
	.quad syn_dbg4
	.quad syn_dbg4_end - syn_dbg4
	.p2align 3, 0
.Lfg_end:

	.section .note.GNU-stack, "", @progbits
