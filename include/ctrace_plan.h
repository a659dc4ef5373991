/* ctrace_plan.h -- the capture plan file: its grammar and its limits.
 *
 * `ctrace-symbolize --make-plan PROGRAM...` writes it (symbolizer/values/plan.c)
 * from the programs' DWARF; the recorder reads it at start-up
 * (lib/plan.c), from CTRACE_PLAN or PROGRAM.ctrace-plan.  It tells the
 * recorder, for each call of the entry hook, what to save for the
 * symbolizer to find the arguments and the return value.  Both sides use
 * the constants below; doc/format.md ("Capture plans") explains the design.
 *
 * ---------------------------------------------------------------------------
 * Grammar
 * ---------------------------------------------------------------------------
 *
 * Text, one record per line ("\n"), words separated by spaces or tabs:
 *
 *   plan   = "ctrace-plan" SP VERSION NL { module | pc | exit | rx | other }
 *   module = "module" SP BUILD-ID [SP PATH] NL
 *   pc     = "pc" SP HEX { SP item } NL
 *   item   = "fde" SP HEX
 *          | "cfa" SP REG SP OFFSET
 *          | "wide"
 *          | "regs" SP HEX
 *          | "mem" SP BASE SP OFFSET SP LENGTH
 *          | "str" SP "r" SP REG
 *          | "str" SP BASE SP OFFSET
 *          | "ret" SP MASK SP LENGTH
 *   BASE   = "c" | "s"
 *   exit   = "exit" SP HEX SP "fn" SP HEX SP "ret" SP MASK SP LENGTH
 *            { SP "op" SP OP SP DSZ SP SSZ SP D SP S SP BASE SP ARG } NL
 *   rx     = "rx" SP HEX NL
 *
 * VERSION is CTRACE_PLAN_VERSION.  BUILD-ID is the object's NT_GNU_BUILD_ID
 * in lower-case hexadecimal, two digits a byte; PATH, the rest of the line,
 * is the file the plan was made from, for people (the recorder matches by
 * build-id alone).  The `pc` lines after a `module` line belong to it; a
 * module whose build-id matches no loaded object is skipped with its `pc`
 * lines, so a stale plan never applies.  HEX numbers are hexadecimal
 * without 0x; REG, OFFSET, LENGTH and MASK are decimal, OFFSET signed.
 *
 *   pc HEX        the entry hook's return address, link-time (never 0)
 *   fde HEX       the start of the function part holding pc (a function
 *                 split hot and cold has several); the return value is
 *                 caught only when it is the function the hook is given
 *   cfa REG OFF   the frame's CFA at the hook's call: DWARF register REG
 *                 plus OFF (required)
 *   wide          also save the generic stack windows (the plan does not
 *                 know every location)
 *   regs HEX      the callee-saved registers to record, a mask by DWARF
 *                 number; without it, all of them
 *   mem B OFF LEN LEN bytes of stack at the CFA (c) or the stack pointer
 *                 (s) plus OFF
 *   str r REG     a string argument's pointer is in register REG
 *   str B OFF     ... or in the stack slot at B plus OFF
 *   ret MASK LEN  the registers of the return value (CTRACE_RETVAL_* bits;
 *                 0: the function returns nothing, no trampoline, and the
 *                 function at fde is left out of CTRACE_RETVAL) and LEN
 *                 bytes at r0 for a struct returned in memory (MEM only)
 *
 * Return values read at the exit hook (x86-64).  Where the code between
 * a call of the exit hook and the function's `ret` is straight-line, made
 * of the operations below, and reads only callee-saved registers, the
 * stack pointer and the function's own frame
 * (symbolizer/values/x86/epilogue.c proves it), the recorder runs it at
 * the exit hook over the registers its stub saved, and writes the return
 * value then, instead of replacing the function's return address with
 * its trampoline (lib/retread.c):
 *
 *   exit HEX      the exit hook's return address, link-time
 *   fn HEX        the function whose own exit it is (the one the hook is
 *                 given; an inlined copy's exit has no line)
 *   ret MASK LEN  as a `pc` line's: the RETVAL record to write, from rax
 *                 (r0), rdx (r1), the low 8 bytes of xmm0 and xmm1 (their
 *                 upper bytes zero) as the operations leave them
 *   op ...        one operation (CTRACE_EOP_*, below) in the order of the
 *                 code: OP, the sizes in bytes of its destination (DSZ)
 *                 and of its source (SSZ), the destination register D,
 *                 the source S, BASE and ARG; registers are numbered as
 *                 the instructions number them, 0-15 the general ones
 *                 (4 is rsp), 16-31 xmm0-15 (their low 8 bytes).  S is a
 *                 register, CTRACE_EOP_MEM (the SSZ bytes at register
 *                 BASE plus ARG: BASE is 4, or 5 where rbp is the frame
 *                 pointer), or CTRACE_EOP_IMM (the value ARG).  A write
 *                 of DSZ 4 to a general register zeroes its upper half,
 *                 of DSZ 1 or 2 keeps its other bytes, as x86 does.
 *   rx HEX        every exit of the function at HEX has an `exit` line:
 *                 its entries (`pc` lines whose fde is HEX) set no
 *                 trampoline
 *
 * Unknown lines and a `pc` line that breaks a limit below are skipped (the
 * recorder then saves that call's generic windows), so a newer writer's
 * additions never make an older recorder capture wrong data.  Example:
 *
 *   ctrace-plan 1
 *   module 3f2a...e1 /home/me/prog
 *   pc 1189 fde 1169 cfa 7 16 regs 8 ret 65 0
 *   pc 11c4 fde 11a8 cfa 6 16 mem c -32 16 str c -24 ret 1 0
 */
#ifndef CTRACE_PLAN_H
#define CTRACE_PLAN_H

#define CTRACE_PLAN_MAGIC "ctrace-plan"
#define CTRACE_PLAN_VERSION 1

/* Limits: a writer keeps within them, a reader refuses the line (or the
 * module) that does not. */
#define CTRACE_PLAN_BUILD_ID_MAX 64   /* bytes of a build-id */
#define CTRACE_PLAN_MAX_REG 60        /* largest DWARF register number */
#define CTRACE_PLAN_MAX_CFA_OFFSET (1 << 20) /* |cfa OFFSET| */
#define CTRACE_PLAN_MAX_OFFSET 65536  /* |mem OFFSET|, |str OFFSET| */
#define CTRACE_PLAN_MAX_LENGTH 4096   /* a mem LENGTH (and more than 0) */
#define CTRACE_PLAN_MAX_MEM 4         /* mem items per pc line */
#define CTRACE_PLAN_MAX_STR 6         /* str items per pc line */
/* Total mem bytes per call: a line over it is read as `wide` without its
 * mem items (the generic windows cost less than a long list). */
#define CTRACE_PLAN_MAX_BYTES 512
/* The whole file: the recorder reads it at start-up and refuses a larger
 * one (about four million call sites). */
#define CTRACE_PLAN_MAX_FILE (256u << 20)

/* The BASE letters, and "r" for a string pointer in a register. */
#define CTRACE_PLAN_BASE_CFA 'c'
#define CTRACE_PLAN_BASE_SP 's'
#define CTRACE_PLAN_BASE_REG 'r'

/* An `exit` line's operations: D = S, or D = D op S, at DSZ bytes. */
#define CTRACE_PLAN_MAX_OPS 32 /* per line */
#define CTRACE_EOP_MEM (-1)    /* S: memory at BASE + ARG */
#define CTRACE_EOP_IMM (-2)    /* S: the value ARG */
enum ctrace_plan_op {
	CTRACE_EOP_MOV = 1, /* D = S */
	CTRACE_EOP_ZX,      /* D = S's SSZ low bytes, zero-extended */
	CTRACE_EOP_SX,      /* ... sign-extended */
	CTRACE_EOP_LEA,     /* D = BASE + S * SSZ + ARG (BASE -1, S
			     * CTRACE_EOP_IMM: none) */
	CTRACE_EOP_ADD,
	CTRACE_EOP_SUB,
	CTRACE_EOP_AND,
	CTRACE_EOP_OR,
	CTRACE_EOP_XOR,
	CTRACE_EOP_IMUL,
	CTRACE_EOP_NEG,     /* D = -D */
	CTRACE_EOP_NOT,
	CTRACE_EOP_SHL,     /* D <<= ARG */
	CTRACE_EOP_SHR,
	CTRACE_EOP_SAR,
	CTRACE_EOP_CMP,     /* the flags of D - S */
	CTRACE_EOP_TEST,    /* the flags of D & S */
	CTRACE_EOP_SET,     /* D's low byte = condition ARG (x86's cc) */
	CTRACE_EOP_CMOV,    /* D = S if condition ARG (DSZ 4: D zero-
			     * extended either way) */
	CTRACE_EOP_POP,     /* D = 8 bytes at rsp; rsp += 8 */
	CTRACE_EOP_LEAVE,   /* rsp = rbp; pop rbp */
	CTRACE_EOP_XMOV,    /* xmm D = S's SSZ low bytes, zero-extended
			     * (DSZ 8), or D's low SSZ bytes replaced (DSZ
			     * 4) */
	CTRACE_EOP_XZERO,   /* xmm D = 0 */
	CTRACE_EOP_CVTSD,   /* xmm D = (double) S, an SSZ-byte integer */
	CTRACE_EOP_CVTSS,   /* xmm D's low 4 bytes = (float) S */
	CTRACE_EOP_IMULI,   /* D = S * ARG */
	/* xmm D = D op S, SSZ 8 double (addsd...), 4 float (its low 4 bytes
	 * replaced), as the instruction computes it in the program's
	 * rounding mode; S may be an xmm register, memory or the constant
	 * ARG (bits; read from the program's read-only data) */
	CTRACE_EOP_FADD,
	CTRACE_EOP_FSUB,
	CTRACE_EOP_FMUL,
	CTRACE_EOP_FDIV,
	CTRACE_EOP_FCVT,    /* xmm D = S converted: SSZ 4 float to double,
			     * 8 double to float (low 4 bytes replaced) */
	CTRACE_EOP_LAST = CTRACE_EOP_FCVT
};

#endif /* CTRACE_PLAN_H */
