/* arch/i386/retval.S -- the return trampoline, whose C side is retval.c.
 * Layout: struct ctrace__retregs (capture.h).
 */
	.text

	.globl	ctrace__retval_trampoline
	.hidden	ctrace__retval_trampoline
	.type	ctrace__retval_trampoline, @function
	.p2align 4
ctrace__retval_trampoline:
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
	call	ctrace__retval_exit
	movl	%eax, %ecx
	cmpl	$0, 36(%esp)
	je	2f
	fldt	24(%esp)
2:	movl	20(%esp), %edx
	movl	16(%esp), %eax
	movl	%ebp, %esp
	popl	%ebp
	jmp	*%ecx
	.size	ctrace__retval_trampoline, .-ctrace__retval_trampoline

	.section .note.GNU-stack,"",@progbits
