/*
 * weft_test_regs(fn, arg, in[6], out[6]) for AArch64: load in[] into the
 * callee-saved x19-x24, call fn(arg) (which passes scheduling points and
 * so switches fibers), store x19-x24 into out[], restore the caller's.
 */
#if defined(__aarch64__)
	.text
	.globl	weft_test_regs
	.type	weft_test_regs, %function
weft_test_regs:
	stp	x29, x30, [sp, #-80]!
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	str	x3, [sp, #64]
	mov	x9, x0
	mov	x0, x1
	ldp	x19, x20, [x2]
	ldp	x21, x22, [x2, #16]
	ldp	x23, x24, [x2, #32]
	blr	x9
	ldr	x3, [sp, #64]
	stp	x19, x20, [x3]
	stp	x21, x22, [x3, #16]
	stp	x23, x24, [x3, #32]
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x29, x30, [sp], #80
	ret
	.size	weft_test_regs, .-weft_test_regs
#endif
	.section .note.GNU-stack,"",%progbits
