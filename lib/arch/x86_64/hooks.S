/* arch/x86_64/hooks.S -- the entry hook's stub and the return trampoline.
 *
 * __cyg_profile_func_enter must see the instrumented function's
 * callee-saved registers before any C prologue saves and reuses them.  By
 * default (no capture) it jumps straight to the C hook, whose frame is
 * then exactly what it would have been had it been called directly, with
 * the function's frame pointer register as a third argument.
 * Layouts: struct ctrace__regs and struct ctrace__retregs (capture.h).
 */
	.text

	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	.cfi_startproc
	cmpb	$0, ctrace__state_capture_on(%rip)
	jne	1f
	movq	%rbp, %rdx		/* fp: for a CFA kept in rbp */
	jmp	ctrace__hook_enter
1:	subq	$72, %rsp
	.cfi_adjust_cfa_offset 72
	movq	%rbx, 0(%rsp)
	movq	%rbp, 8(%rsp)
	movq	%r12, 16(%rsp)
	movq	%r13, 24(%rsp)
	movq	%r14, 32(%rsp)
	movq	%r15, 40(%rsp)
	leaq	80(%rsp), %rax
	movq	%rax, 48(%rsp)		/* sp: our CFA */
	movq	72(%rsp), %rax
	movq	%rax, 56(%rsp)		/* pc: our return address */
	movq	%rsp, %rdx
	call	ctrace__hook_enter_regs
	addq	$72, %rsp
	.cfi_adjust_cfa_offset -72
	ret
	.cfi_endproc
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

/* Reached by the ret of a function whose return address was replaced:
 * rax, rdx, xmm0, xmm1 and st0 may hold its return value.  No CFI: the
 * unwinder must never walk through here (capture.c restores the real
 * return addresses before an exception unwinds). */
	.globl	ctrace__return_trampoline
	.hidden	ctrace__return_trampoline
	.type	ctrace__return_trampoline, @function
	.p2align 4
ctrace__return_trampoline:
	subq	$96, %rsp		/* rsp was 16-byte aligned after ret */
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movdqu	%xmm0, 16(%rsp)
	movdqu	%xmm1, 32(%rsp)
	movq	$0, 64(%rsp)
	/* st0 only when the returning frame's record may want it: fxam
	 * waits for the x87 unit. */
	movq	ctrace__tramp_st0@gottpoff(%rip), %rax
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
	call	ctrace__trampoline_exit
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
	.size	ctrace__return_trampoline, .-ctrace__return_trampoline

	.section .note.GNU-stack,"",@progbits
