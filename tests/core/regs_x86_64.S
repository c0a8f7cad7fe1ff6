/*
 * weft_test_regs(fn, arg, in[6], out[6]): load in[] into the callee-saved
 * registers rbx, rbp, r12-r15, call fn(arg) (which passes scheduling points
 * and so switches fibers), store the registers into out[], restore the
 * caller's values. The test checks out == in.
 */
#if defined(__x86_64__)
	.text
	.globl	weft_test_regs
	.type	weft_test_regs, @function
weft_test_regs:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushq	%rcx
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	0(%rdx), %rbx
	movq	8(%rdx), %rbp
	movq	16(%rdx), %r12
	movq	24(%rdx), %r13
	movq	32(%rdx), %r14
	movq	40(%rdx), %r15
	callq	*%rax
	popq	%rcx
	movq	%rbx, 0(%rcx)
	movq	%rbp, 8(%rcx)
	movq	%r12, 16(%rcx)
	movq	%r13, 24(%rcx)
	movq	%r14, 32(%rcx)
	movq	%r15, 40(%rcx)
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	weft_test_regs, .-weft_test_regs
#endif
	.section .note.GNU-stack,"",@progbits
