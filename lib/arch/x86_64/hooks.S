/* arch/x86_64/hooks.S -- the hooks' stubs (the return trampoline is in
 * retval.S).
 *
 * __cyg_profile_func_enter must see the instrumented function's
 * callee-saved registers before any C prologue saves and reuses them.  By
 * default (no capture) it jumps straight to the C hook, whose frame is
 * then exactly what it would have been had it been called directly, with
 * the function's frame pointer register as a third argument.
 * Layouts: struct ctrace__regs and struct ctrace__retregs (capture.h).
 */
	.text

/* Saves struct ctrace__regs below the stack pointer (the callee-saved
 * registers, the CFA and the return address) and calls `target` with it
 * as its third argument, the hook's two (rdi, rsi) untouched.  The stack
 * is aligned here, not trusted: a function called on a misaligned one
 * (by hand-written assembly) calls its hooks on it (internal.h,
 * CTRACE_REALIGN).  The stack pointer we were called with is kept in rbx
 * (saved first, callee-saved in the C code), so that the one ret follows
 * reads no memory first (a load into rsp just before the ret cost the
 * values' path 1 to 2 ns a hook). */
	.macro	CALL_WITH_REGS target, arg4
	movq	%rsp, %rax
	.cfi_def_cfa_register %rax
	andq	$-16, %rsp
	subq	$64, %rsp
	movq	%rbx, 0(%rsp)
	/* DW_CFA_expression: rbx at rsp + 0 */
	.cfi_escape 0x10, 0x03, 0x02, 0x77, 0x00
	movq	%rax, %rbx
	.cfi_def_cfa_register %rbx
	movq	%rbp, 8(%rsp)
	movq	%r12, 16(%rsp)
	movq	%r13, 24(%rsp)
	movq	%r14, 32(%rsp)
	movq	%r15, 40(%rsp)
	leaq	8(%rax), %rcx
	movq	%rcx, 48(%rsp)		/* sp: our CFA */
	movq	(%rax), %rcx
	movq	%rcx, 56(%rsp)		/* pc: our return address */
	movq	%rsp, %rdx
	.ifnb	\arg4
	movq	\arg4, %rcx
	.endif
	call	\target
	movq	%rbx, %rax
	.cfi_def_cfa_register %rax
	movq	0(%rsp), %rbx
	.cfi_restore %rbx
	movq	%rax, %rsp
	.cfi_def_cfa_register %rsp
	ret
	.endm

	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	.cfi_startproc
	cmpb	$0, ctrace__state_entry_regs_on(%rip)
	jne	1f
	movq	%rbp, %rdx		/* fp: for a CFA kept in rbp */
	jmp	ctrace__hook_enter
1:	CALL_WITH_REGS ctrace__hook_enter_regs
	.cfi_endproc
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

/* The same for the exit hook, when return values are read there (a
 * plan's `exit` lines): the callee-saved registers and the stack pointer
 * still hold what the code after the call moves into the return
 * registers. */
	.globl	__cyg_profile_func_exit
	.type	__cyg_profile_func_exit, @function
	.p2align 4
__cyg_profile_func_exit:
	.cfi_startproc
	cmpb	$0, ctrace__state_exit_regs_on(%rip)
	jne	1f
0:	jmp	ctrace__hook_exit
	/* The exit table's slot of our return address (ctrace__plan_hash
	 * and struct ctrace__plan_exit's size, capture.h).  Empty: no
	 * `exit` line, a function that returns nothing, say; the C hook
	 * records the exit as without values, and no register is saved.
	 * Another pc in it: NULL, for ctrace__hook_exit_regs to look
	 * further. */
1:	movq	ctrace__plan_exits(%rip), %r8
	testq	%r8, %r8
	jz	0b
	movq	(%rsp), %rax
	movabsq	$0x9e3779b97f4a7c15, %rcx
	imulq	%rax, %rcx
	shrq	$40, %rcx
	andq	ctrace__plan_exit_mask(%rip), %rcx
	leaq	(%rcx,%rcx,2), %rcx
	shlq	$4, %rcx		/* 48 bytes a slot */
	addq	%rcx, %r8
	movq	(%r8), %rcx
	cmpq	%rax, %rcx
	je	2f
	testq	%rcx, %rcx
	jz	0b
	xorl	%r8d, %r8d
2:	CALL_WITH_REGS ctrace__hook_exit_regs, %r8
	.cfi_endproc
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

	.section .note.GNU-stack,"",@progbits
