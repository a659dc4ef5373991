/* arch/x86_64/retval.S -- the return trampoline, whose C side is retval.c.
 * Layout: struct ctrace__retregs (capture.h).
 */
	.text

/* Reached by the ret of a function whose return address was replaced:
 * rax, rdx, xmm0, xmm1 and st0 may hold its return value.  No CFI: the
 * unwinder must never walk through here (retval.c restores the real
 * return addresses before an exception unwinds). */
	.globl	ctrace__retval_trampoline
	.hidden	ctrace__retval_trampoline
	.type	ctrace__retval_trampoline, @function
	.p2align 4
ctrace__retval_trampoline:
	subq	$96, %rsp		/* rsp was 16-byte aligned after ret */
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movdqu	%xmm0, 16(%rsp)
	movdqu	%xmm1, 32(%rsp)
	movq	$0, 64(%rsp)
	/* st0 only when the returning frame's record may want it: fxam
	 * waits for the x87 unit. */
	movq	ctrace__retval_st0@gottpoff(%rip), %rax
	cmpb	$0, %fs:(%rax)
	je	1f
	fxam				/* st0 empty: C3=1 C2=0 C0=1 */
	fnstsw	%ax
	andw	$0x4500, %ax
	cmpw	$0x4100, %ax
	je	1f
	fstpt	48(%rsp)
	movq	$1, 64(%rsp)
1:	leaq	96(%rsp), %rax
	movq	%rax, 72(%rsp)		/* sp after the function's ret */
	movq	%rsp, %rdi
	call	ctrace__retval_exit
	movq	%rax, %r11		/* the real return address */
	cmpq	$0, 64(%rsp)
	je	2f
	fldt	48(%rsp)
2:	movdqu	32(%rsp), %xmm1
	movdqu	16(%rsp), %xmm0
	movq	8(%rsp), %rdx
	movq	0(%rsp), %rax
	addq	$96, %rsp
	jmp	*%r11
	.size	ctrace__retval_trampoline, .-ctrace__retval_trampoline

	.section .note.GNU-stack,"",@progbits
