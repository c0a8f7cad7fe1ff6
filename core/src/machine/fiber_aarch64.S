/*
 * weft_ctx_switch(void **save_sp, void *new_sp) for AArch64 (AAPCS64):
 * x19-x28, x29 (fp), x30 (lr) and d8-d15 are callee-saved. A fresh
 * context holds x19 = arg, x20 = fn, x30 = weft_ctx_entry.
 */
#if defined(__aarch64__)
	.text
	.globl	weft_ctx_switch
	.type	weft_ctx_switch, %function
	.p2align 4
weft_ctx_switch:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mov	x2, sp
	str	x2, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
	ret
	.size	weft_ctx_switch, .-weft_ctx_switch

	.globl	weft_ctx_entry
	.type	weft_ctx_entry, %function
	.p2align 4
weft_ctx_entry:
	mov	x0, x19
	blr	x20
	brk	#0
	.size	weft_ctx_entry, .-weft_ctx_entry
#endif
	.section .note.GNU-stack,"",%progbits
