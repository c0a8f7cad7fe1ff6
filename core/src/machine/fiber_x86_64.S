/*
 * weft_ctx_switch(void **save_sp, void *new_sp): save the callee-saved
 * registers of the System V AMD64 ABI (rbx, rbp, r12-r15) on the current
 * stack, store the stack pointer in *save_sp, load new_sp, restore, return
 * into the other context.
 *
 * A fresh context (weft_fiber_reset) holds six register slots (r12 = arg,
 * rbx = fn) and the address of weft_ctx_entry as its return address.
 */
#if defined(__x86_64__)
	.text
	.globl	weft_ctx_switch
	.type	weft_ctx_switch, @function
	.p2align 4
weft_ctx_switch:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	weft_ctx_switch, .-weft_ctx_switch

	.globl	weft_ctx_entry
	.type	weft_ctx_entry, @function
	.p2align 4
weft_ctx_entry:
	.cfi_startproc
	.cfi_undefined rip
	movq	%r12, %rdi
	callq	*%rbx
	ud2
	.cfi_endproc
	.size	weft_ctx_entry, .-weft_ctx_entry
#endif
	.section .note.GNU-stack,"",@progbits
