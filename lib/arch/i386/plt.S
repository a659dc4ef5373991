/* arch/i386/plt.S -- the library call trampolines, whose C side is
 * plt.c.  See arch/x86_64/plt.S.
 *
 * A redirected GOT slot holds one of CTRACE_PLT_SLOTS entry trampolines,
 * 16 bytes apart, which pushes its slot's index and jumps to the common
 * part.  That saves eax, ecx and edx (a regparm or fastcall argument, a
 * static chain; ebx, the PLT's GOT pointer in PIC code, is callee-saved
 * and so kept by the C side), and xmm0-2 (__m128 arguments) when the C
 * side is built with SSE and so may use them, asks ctrace__plt_enter for the real target
 * (which records the entry and replaces the return address with
 * ctrace__plt_return), puts them back, writes the target over the index
 * and returns to it: the library function, or the lazy stub (which
 * pushes its relocation's index and reaches the loader through ebx),
 * runs with the caller's stack, its cdecl arguments above the return
 * address, and every register as the PLT left them, as if called
 * directly.  i386 has no red zone: the target travels in the one word
 * the trampoline pushed.
 */
	.text

#define CTRACE_PLT_SLOTS 4096

	.globl	ctrace__plt_tramps
	.hidden	ctrace__plt_tramps
	.type	ctrace__plt_tramps, @function
	.p2align 4
ctrace__plt_tramps:
	.set	plt_index, 0
	.rept	CTRACE_PLT_SLOTS
	.p2align 4
	endbr32
	pushl	$plt_index
	jmp	ctrace__plt_common
	.set	plt_index, plt_index + 1
	.endr
	.size	ctrace__plt_tramps, .-ctrace__plt_tramps
	.globl	ctrace__plt_tramps_end
	.hidden	ctrace__plt_tramps_end
ctrace__plt_tramps_end:

	.p2align 4
	.type	ctrace__plt_common, @function
ctrace__plt_common:
	.cfi_startproc
	.cfi_adjust_cfa_offset 4	/* the index, over the return address */
	subl	$72, %esp		/* 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 72
	movl	%eax, 8(%esp)
	movl	%ecx, 12(%esp)
	movl	%edx, 16(%esp)
#ifdef __SSE__
	/* __m128 arguments; C code built with SSE may use them */
	movups	%xmm0, 24(%esp)
	movups	%xmm1, 40(%esp)
	movups	%xmm2, 56(%esp)
#endif
	movl	72(%esp), %eax
	movl	%eax, 0(%esp)		/* the slot's index */
	movl	76(%esp), %eax
	movl	%eax, 72(%esp)		/* the call site, where a hook's is */
	leal	76(%esp), %eax
	movl	%eax, 4(%esp)		/* the return address's slot */
	call	ctrace__plt_enter
	movl	%eax, 72(%esp)		/* the real target */
#ifdef __SSE__
	movups	56(%esp), %xmm2
	movups	40(%esp), %xmm1
	movups	24(%esp), %xmm0
#endif
	movl	16(%esp), %edx
	movl	12(%esp), %ecx
	movl	8(%esp), %eax
	addl	$72, %esp
	.cfi_adjust_cfa_offset -72
	ret				/* to the target, the index's word */
	.cfi_endproc
	.size	ctrace__plt_common, .-ctrace__plt_common

/* Reached by the ret of a library function whose return address was
 * replaced: eax, edx and st(0) may hold its value.  The C side may use
 * the x87 stack, which the ABI has empty at a call: st(0) is kept in the
 * frame when it holds a value, and loaded back (as retval.S does).  The
 * frame (arch/i386/pltarch.h): eax, edx, st(0), whether it held one, from
 * 32 bytes below the stack pointer after the function's ret; below them
 * xmm0 (an __m128 returned) when the C side may use it.  No CFI, as
 * retval.S's trampoline: retval.c puts the real return addresses back
 * before an exception unwinds. */
	.globl	ctrace__plt_return
	.hidden	ctrace__plt_return
	.type	ctrace__plt_return, @function
	.p2align 4
ctrace__plt_return:
	subl	$64, %esp
	movl	%eax, 32(%esp)
	movl	%edx, 36(%esp)
#ifdef __SSE__
	movups	%xmm0, 16(%esp)		/* an __m128 returned */
#endif
	movl	$0, 52(%esp)
	/* TOP 0: the x87 stack empty, without fxam (x86-64's plt.S says
	 * why). */
	fnstsw	%ax
	testw	$0x3800, %ax
	jz	1f
	fxam
	fnstsw	%ax
	andw	$0x4500, %ax
	cmpw	$0x4100, %ax		/* C3 and C0: empty */
	je	1f
	fstpt	40(%esp)
	movl	$1, 52(%esp)
1:	leal	64(%esp), %eax
	movl	%eax, 0(%esp)		/* sp after the function's ret */
	call	ctrace__plt_exit
	movl	%eax, %ecx		/* the real return address */
	cmpl	$0, 52(%esp)
	je	2f
	fldt	40(%esp)
2:
#ifdef __SSE__
	movups	16(%esp), %xmm0
#endif
	movl	36(%esp), %edx
	movl	32(%esp), %eax
	addl	$64, %esp
	jmp	*%ecx
	.size	ctrace__plt_return, .-ctrace__plt_return

	.section .note.GNU-stack,"",@progbits
