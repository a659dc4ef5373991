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
 * as its third argument, the hook's two (rdi, rsi) untouched. */
	.macro	CALL_WITH_REGS target
	subq	$72, %rsp
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
	call	\target
	addq	$72, %rsp
	.cfi_adjust_cfa_offset -72
	ret
	.endm

	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	.cfi_startproc
	cmpb	$0, ctrace__state_capture_on(%rip)
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
	jmp	ctrace__hook_exit
1:	CALL_WITH_REGS ctrace__hook_exit_regs
	.cfi_endproc
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

	.section .note.GNU-stack,"",@progbits
