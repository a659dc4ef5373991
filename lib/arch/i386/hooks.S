/* arch/i386/hooks.S -- the entry hook's stub and the return trampoline.
 * See arch/x86_64/hooks.S; layouts in capture.h. */
	.text

	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	.cfi_startproc
	call	1f
1:	popl	%eax
	.cfi_adjust_cfa_offset 0
	addl	$_GLOBAL_OFFSET_TABLE_+(.-1b), %eax
	cmpb	$0, ctrace__state_capture_on@GOTOFF(%eax)
	jne	2f
	movl	4(%esp), %eax		/* regparm(3): fn, site, fp */
	movl	8(%esp), %edx
	movl	%ebp, %ecx
	jmp	ctrace__hook_enter
2:	subl	$44, %esp
	.cfi_adjust_cfa_offset 44
	movl	%ebx, 16(%esp)
	movl	%esi, 20(%esp)
	movl	%edi, 24(%esp)
	movl	%ebp, 28(%esp)
	leal	48(%esp), %eax
	movl	%eax, 32(%esp)		/* sp: our CFA */
	movl	44(%esp), %eax
	movl	%eax, 36(%esp)		/* pc */
	movl	48(%esp), %eax
	movl	%eax, 0(%esp)		/* fn */
	movl	52(%esp), %eax
	movl	%eax, 4(%esp)		/* site */
	leal	16(%esp), %eax
	movl	%eax, 8(%esp)
	call	ctrace__hook_enter_regs
	addl	$44, %esp
	.cfi_adjust_cfa_offset -44
	ret
	.cfi_endproc
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

	.globl	ctrace__return_trampoline
	.hidden	ctrace__return_trampoline
	.type	ctrace__return_trampoline, @function
	.p2align 4
ctrace__return_trampoline:
	pushl	%ebp
	movl	%esp, %ebp
	andl	$-16, %esp
	subl	$48, %esp
	movl	%eax, 16(%esp)
	movl	%edx, 20(%esp)
	movl	$0, 36(%esp)
	fxam
	fnstsw	%ax
	andw	$0x4500, %ax
	cmpw	$0x4100, %ax
	je	1f
	fstpt	24(%esp)
	movl	$1, 36(%esp)
1:	leal	4(%ebp), %eax
	movl	%eax, 40(%esp)		/* sp after the function's ret */
	leal	16(%esp), %eax
	movl	%eax, 0(%esp)
	call	ctrace__trampoline_exit
	movl	%eax, %ecx
	cmpl	$0, 36(%esp)
	je	2f
	fldt	24(%esp)
2:	movl	20(%esp), %edx
	movl	16(%esp), %eax
	movl	%ebp, %esp
	popl	%ebp
	jmp	*%ecx
	.size	ctrace__return_trampoline, .-ctrace__return_trampoline

	.section .note.GNU-stack,"",@progbits
