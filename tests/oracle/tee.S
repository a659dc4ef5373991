/* tee.S -- the counting oracle and the recorder in one run.
 *
 * A program whose calls depend on timing (a worker's polling loop, a
 * queue slot found full, an object reused only when two threads did not
 * overlap) makes other calls in every run: a trace cannot be checked
 * against another run's counts.  Linked with these hooks, counthook.c
 * built with -DCOUNTHOOK_TEE (its hooks renamed counthook_enter/exit) and
 * a copy of libctrace.a whose hooks objcopy renamed tee_next_enter and
 * tee_next_exit, every hook first counts, then jumps to the recorder's
 * with the stack, the return address and the callee-saved registers of
 * the instrumented function's call: the recorder sees exactly what it
 * sees when called directly, and the counts are those of the very calls
 * it recorded.  See tests/lib.sh (build_pair, same_run_check).
 */
	.text
#if defined(__x86_64__)

	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	pushq	%rdi		/* three pushes: the stack 16-byte aligned */
	pushq	%rsi
	pushq	%rdx
	call	counthook_enter
	popq	%rdx
	popq	%rsi
	popq	%rdi
	jmp	tee_next_enter
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

	.globl	__cyg_profile_func_exit
	.type	__cyg_profile_func_exit, @function
	.p2align 4
__cyg_profile_func_exit:
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	call	counthook_exit
	popq	%rdx
	popq	%rsi
	popq	%rdi
	jmp	tee_next_exit
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

#elif defined(__i386__)

/* Arguments on the stack: 4(%esp) fn, 8(%esp) site. */
	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
	.p2align 4
__cyg_profile_func_enter:
	pushl	%eax
	pushl	%ecx
	pushl	%edx
	subl	$8, %esp	/* 16-byte aligned at the call */
	pushl	28(%esp)	/* site */
	pushl	28(%esp)	/* fn */
	call	counthook_enter
	addl	$16, %esp
	popl	%edx
	popl	%ecx
	popl	%eax
	jmp	tee_next_enter
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

	.globl	__cyg_profile_func_exit
	.type	__cyg_profile_func_exit, @function
	.p2align 4
__cyg_profile_func_exit:
	pushl	%eax
	pushl	%ecx
	pushl	%edx
	subl	$8, %esp
	pushl	28(%esp)
	pushl	28(%esp)
	call	counthook_exit
	addl	$16, %esp
	popl	%edx
	popl	%ecx
	popl	%eax
	jmp	tee_next_exit
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

#else
#error "tee.S: x86-64 and i386 only"
#endif
	.section .note.GNU-stack,"",@progbits
