/* arch/i386/hooks.S -- the hooks' stubs (the return trampoline is in
 * retval.S).
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
	cmpb	$0, ctrace__state_entry_regs_on@GOTOFF(%eax)
	jne	2f
	movl	4(%esp), %eax		/* regparm(3): fn, site, fp */
	movl	8(%esp), %edx
	movl	%ebp, %ecx
	jmp	ctrace__hook_enter
	/* The stack aligned here, not trusted (arch/x86_64/hooks.S); the
	 * stack pointer we were called with kept in ebx. */
2:	movl	%esp, %eax
	.cfi_def_cfa_register %eax
	andl	$-16, %esp
	subl	$48, %esp
	movl	%ebx, 16(%esp)
	/* DW_CFA_expression: ebx at esp + 16 */
	.cfi_escape 0x10, 0x03, 0x02, 0x74, 0x10
	movl	%eax, %ebx
	.cfi_def_cfa_register %ebx
	movl	%esi, 20(%esp)
	movl	%edi, 24(%esp)
	movl	%ebp, 28(%esp)
	leal	4(%eax), %ecx
	movl	%ecx, 32(%esp)		/* sp: our CFA */
	movl	(%eax), %ecx
	movl	%ecx, 36(%esp)		/* pc */
	movl	4(%eax), %ecx
	movl	%ecx, 0(%esp)		/* fn */
	movl	8(%eax), %ecx
	movl	%ecx, 4(%esp)		/* site */
	leal	16(%esp), %ecx
	movl	%ecx, 8(%esp)
	call	ctrace__hook_enter_regs
	movl	%ebx, %eax
	.cfi_def_cfa_register %eax
	movl	16(%esp), %ebx
	.cfi_restore %ebx
	movl	%eax, %esp
	.cfi_def_cfa_register %esp
	ret
	.cfi_endproc
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

/* Return values are not read at the exit hook on i386 (the trampoline
 * serves): straight on to the C hook, in the same frame. */
	.globl	__cyg_profile_func_exit
	.type	__cyg_profile_func_exit, @function
	.p2align 4
__cyg_profile_func_exit:
	.cfi_startproc
	jmp	ctrace__hook_exit
	.cfi_endproc
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

	.section .note.GNU-stack,"",@progbits
