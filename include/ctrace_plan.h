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
 *   plan   = "ctrace-plan" SP VERSION NL { module | pc | other }
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

#endif /* CTRACE_PLAN_H */
