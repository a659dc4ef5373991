/* arch/x86_64/plt.S -- the library call trampolines, whose C side is
 * plt.c.
 *
 * A redirected GOT slot holds one of CTRACE_PLT_SLOTS entry trampolines,
 * 16 bytes apart, which pushes its slot's index and jumps to the common
 * part.  That saves every register a call or a PLT passes something in
 * (rdi, rsi, rdx, rcx, r8, r9, rax for varargs, r10 for a static chain,
 * xmm0-7, and r11: mold's PLT entries give the loader's lazy stub the
 * relocation's index there), asks ctrace__plt_enter for the real target
 * (which records the entry and replaces the return address with
 * ctrace__plt_return), puts them all back, drops the index and jumps to
 * the target through the red zone (the kernel writes a signal frame
 * below it, never in it): the library function, or the lazy stub, runs
 * with the caller's stack and every register as the PLT left them, as if
 * called directly.
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
	endbr64
	pushq	$plt_index
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
	.cfi_adjust_cfa_offset 8	/* the index, over the return address */
	subq	$208, %rsp		/* 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 208
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
	movq	%r10, 56(%rsp)
	movdqu	%xmm0, 64(%rsp)
	movdqu	%xmm1, 80(%rsp)
	movdqu	%xmm2, 96(%rsp)
	movdqu	%xmm3, 112(%rsp)
	movdqu	%xmm4, 128(%rsp)
	movdqu	%xmm5, 144(%rsp)
	movdqu	%xmm6, 160(%rsp)
	movdqu	%xmm7, 176(%rsp)
	movq	%r11, 192(%rsp)
	movl	208(%rsp), %edi		/* the slot's index */
	movq	216(%rsp), %rax
	movq	%rax, 208(%rsp)		/* the call site, where a hook's is */
	leaq	216(%rsp), %rsi		/* the return address's slot */
	call	ctrace__plt_enter
	movq	%rax, 200(%rsp)		/* the real target */
	/* A call recorded here (its return address ctrace__plt_return
	 * now, and not before: a call through another trampoline is that
	 * one's to record) is called below, from just above
	 * ctrace__plt_return: the return stack buffer then predicts the
	 * function's ret to there and that code's ret to the caller, which
	 * a jump to the target would have it mispredict.  ZF says which,
	 * kept by the moves and the lea below. */
	leaq	ctrace__plt_return(%rip), %rax
	cmpq	%rax, 208(%rsp)
	je	2f
	cmpq	%rax, 216(%rsp)
	jmp	3f
2:	testq	%rsp, %rsp		/* ZF clear */
3:
	movq	192(%rsp), %r11
	movdqu	176(%rsp), %xmm7
	movdqu	160(%rsp), %xmm6
	movdqu	144(%rsp), %xmm5
	movdqu	128(%rsp), %xmm4
	movdqu	112(%rsp), %xmm3
	movdqu	96(%rsp), %xmm2
	movdqu	80(%rsp), %xmm1
	movdqu	64(%rsp), %xmm0
	movq	56(%rsp), %r10
	movq	48(%rsp), %rax
	movq	40(%rsp), %r9
	movq	32(%rsp), %r8
	movq	24(%rsp), %rcx
	movq	16(%rsp), %rdx
	movq	8(%rsp), %rsi
	movq	0(%rsp), %rdi
	leaq	216(%rsp), %rsp		/* the frame and the index */
	.cfi_adjust_cfa_offset -216
	je	1f
	jmp	*-16(%rsp)		/* 200(%rsp) above, in the red zone */
	/* No CFI from here: ctrace__plt_return - 1, where an unwinder
	 * would look for the frame of a function returning there, is in
	 * none (retval.c puts return addresses back before unwinding). */
	.cfi_endproc
1:	call	plt_call
	.size	ctrace__plt_common, .-ctrace__plt_common

/* Reached by the ret of a library function whose return address was
 * replaced (right after the call above, which pushed that address
 * where the return stack buffer predicts it): rax, rdx, xmm0, xmm1, st0
 * and st1 may hold its value.  The frame (arch/x86_64/pltarch.h): rax,
 * rdx, xmm0, xmm1, st(0) when it holds a value (a long double returned:
 * the status word's TOP, then fxam, say whether it is empty)
 * and whether it did, st(1) when st(0) and st(1) both do (a _Complex
 * long double: its imaginary part) and whether it did, from 80 bytes
 * below the stack pointer after the function's ret.  Whether st(1) holds
 * a value is read from the tag word fxsave stores (an fld or fxch of an
 * empty register would set the invalid operation flag, the program's;
 * fincstp, which would let fxam see it, is an instruction valgrind does
 * not know), in 512 bytes below the frame, only when st(0) holds one and
 * values are recorded (fxsave costs about 25 ns).  Each register is
 * copied (fld, then fstp of the copy), never popped: the C side touches
 * no x87 register.  No CFI, as retval.S's trampoline:
 * retval.c puts the real return addresses back before an exception
 * unwinds. */
	.globl	ctrace__plt_return
	.hidden	ctrace__plt_return
	.type	ctrace__plt_return, @function
ctrace__plt_return:
	subq	$80, %rsp
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movdqu	%xmm0, 16(%rsp)
	movdqu	%xmm1, 32(%rsp)
	movq	$0, 64(%rsp)
	/* The x87 stack is empty at a call (the ABI): a function that
	 * returns in st(0) leaves TOP, in bits 11-13 of the status word,
	 * one below where it was, 7 from the usual 0.  TOP 0: empty, said
	 * without fxam, which takes about 90 ns on an empty register on
	 * some CPUs (an assist), at every library call's return.  A value
	 * returned over a TOP left at 1 (an unbalanced fincstp: the ABI
	 * asks for empty registers, not for TOP 0) shows as not captured,
	 * never as another value. */
	fnstsw	%ax
	testw	$0x3800, %ax
	jz	1f
	fxam
	fnstsw	%ax
	andw	$0x4500, %ax
	cmpw	$0x4100, %ax		/* C3 and C0: empty */
	je	1f
	fld	%st(0)
	fstpt	48(%rsp)
	movb	$1, 64(%rsp)
	cmpb	$0, ctrace__state_capture_on(%rip)
	je	1f			/* no values recorded: st(1) unused */
	movq	%rsp, %rdx		/* rdx is saved above */
	subq	$512, %rsp		/* fxsave's area, 16-byte aligned */
	andq	$-16, %rsp		/* (a caller may not have kept it so) */
	fxsave	(%rsp)
	movzwl	2(%rsp), %eax		/* the status word: TOP in bits 11-13 */
	shrl	$11, %eax
	incl	%eax
	andl	$7, %eax		/* st(1)'s physical register */
	movzbl	4(%rsp), %ecx		/* the abridged tag word: 1 not empty */
	movq	%rdx, %rsp
	btl	%eax, %ecx
	jnc	1f
	fld	%st(1)
	fstpt	66(%rsp)
	movb	$1, 65(%rsp)
1:	leaq	80(%rsp), %rdi		/* sp after the function's ret */
	call	ctrace__plt_exit
	movq	%rax, %r11		/* the real return address */
	movdqu	32(%rsp), %xmm1
	movdqu	16(%rsp), %xmm0
	movq	8(%rsp), %rdx
	movq	0(%rsp), %rax
	addq	$80, %rsp
	/* A tail call's (plt.c): the call it jumped from returns here too,
	 * and that one's ret is the one the caller's call pushed. */
	leaq	ctrace__plt_return(%rip), %r10
	cmpq	%r10, %r11
	je	ctrace__plt_return
	pushq	%r11
	ret				/* predicted: the caller's call pushed it */
	.size	ctrace__plt_return, .-ctrace__plt_return

/* The call above: its return address, ctrace__plt_return, is dropped
 * (the function has its own, the same), and the target reached as from
 * the common part, through the red zone. */
	.type	plt_call, @function
plt_call:
	leaq	8(%rsp), %rsp
	jmp	*-16(%rsp)
	.size	plt_call, .-plt_call

	.section .note.GNU-stack,"",@progbits
