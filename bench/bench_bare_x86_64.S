/*
 * bench_bare_switch(void **save_sp, void *new_sp): the reference point of
 * the context-switch benchmark, written here independently of core/: the
 * least a correct switch between C stacks can do under the System V AMD64
 * ABI (save the six callee-saved registers, swap rsp, return). Weft's own
 * switch (core/src/machine/fiber_x86_64.S) is measured against it through the
 * fiber API, so the ratio is the cost of that API's C wrapper.
 */
#if defined(__x86_64__)
	.text
	.globl	bench_bare_switch
	.type	bench_bare_switch, @function
	.p2align 4
bench_bare_switch:
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
	.size	bench_bare_switch, .-bench_bare_switch
#endif
	.section .note.GNU-stack,"",@progbits
