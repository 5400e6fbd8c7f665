# frame.s - hand-written CFI for test_frame: the rules unwind/frame.c
# evaluates (offsets from the CFA, registers, expressions, value
# expressions and their operations), the ones it must leave unknown, a
# signal frame and code without CFI.  Each fr_* label marks the first
# instruction of a row.  Linked with
# `gcc -shared -nostdlib -o libframe.so frame.s`; never executed.

	.text

# the usual prologue: CFA rsp+8, then rsp+16 with rbp saved, then rbp+16
# with rbx saved too
	.globl fr_basic, fr_basic_pushed, fr_basic_framed, fr_basic_saved
	.type fr_basic, @function
	.p2align 4
fr_basic:
	.cfi_startproc
	push %rbp
fr_basic_pushed:
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov %rsp, %rbp
fr_basic_framed:
	.cfi_def_cfa_register %rbp
	push %rbx
fr_basic_saved:
	.cfi_offset %rbx, -24
	nop
	pop %rbx
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size fr_basic, .-fr_basic

# stack realignment: CFA = *(rbp - 8), rbp saved at rbp (an expression)
	.globl fr_realign
	.type fr_realign, @function
	.p2align 4
fr_realign:
	.cfi_startproc
	nop
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06	# DW_CFA_def_cfa_expression: breg6 -8; deref
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00	# DW_CFA_expression rbp: breg6 0
	nop
	ret
	.cfi_endproc
	.size fr_realign, .-fr_realign

# value rules and the operations of value expressions
	.globl fr_values
	.type fr_values, @function
	.p2align 4
fr_values:
	.cfi_startproc
	nop
	.cfi_register %rbp, %rbx
	# rbx = ((rsp + 16) - 3) & 0xf0, + 4
	.cfi_escape 0x16, 0x03, 0x09, 0x77, 0x10, 0x33, 0x1c, 0x08, 0xf0, 0x1a, 0x23, 0x04
	# r12 = CFA + 8 (DW_OP_call_frame_cfa, lit8, plus)
	.cfi_escape 0x16, 0x0c, 0x03, 0x9c, 0x38, 0x22
	# r13 = rbx + 1 (DW_OP_bregx 3 1)
	.cfi_escape 0x16, 0x0d, 0x03, 0x92, 0x03, 0x01
	# r14 = 1 * 2: DW_OP_mul is not a CFI operation here
	.cfi_escape 0x16, 0x0e, 0x03, 0x31, 0x32, 0x1e
	# r15 = nine constants: deeper than the evaluator's stack
	.cfi_escape 0x16, 0x0f, 0x09, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30
	# rax saved at CFA + 24 (an offset rule)
	.cfi_offset %rax, 24
	.cfi_undefined %rip
	nop
	ret
	.cfi_endproc
	.size fr_values, .-fr_values

# a signal trampoline: its caller's pc is exact
	.globl fr_signal
	.type fr_signal, @function
	.p2align 4
	nop
fr_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	ret
	.cfi_endproc
	.size fr_signal, .-fr_signal

# no CFI at all
	.globl fr_nocfi
	.type fr_nocfi, @function
	.p2align 4
fr_nocfi:
	nop
	ret
	.size fr_nocfi, .-fr_nocfi
