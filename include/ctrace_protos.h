/* ctrace_protos.h -- the prototypes of common C library functions that
 * library calls are shown with when no better type information is at
 * hand (ctrace_protos.def holds them, as data).
 *
 * The recorder reads the table once per GOT slot it redirects, for which
 * argument registers to save and which of them point to strings whose
 * text is saved at the call (lib/protos.c); the symbolizer for the types
 * and names the saved registers are shown with
 * (symbolizer/values/libcall.c).  Both include ctrace_protos.def with
 * their own definitions of CTRACE_PROTO and CTRACE_ARG:
 *
 *   CTRACE_PROTO(NAME, RETURN, VARIADIC, ARGS...)
 *   CTRACE_ARG(KIND, PARAMETER)
 *
 * RETURN and each KIND name an enum ctrace_proto_kind without its
 * prefix; VARIADIC is 1 for a function whose last parameter is `...`
 * (its fixed parameters alone are listed); a function of no parameters
 * lists CTRACE_ARG(VOID, void).  A function takes at most
 * CTRACE_PROTO_MAX_ARGS parameters, every one of them passed in a
 * register on x86-64 (six integer, eight floating point) but a
 * _Complex long double (CTRACE_PROTO_IS_MEM: on the stack, the first 32
 * bytes of which the recorder saves); on i386 all are passed on the
 * stack (CTRACE_PROTO_WORDS32 words each, after the address of the
 * caller's buffer for a function that returns a _Complex long double).
 */
#ifndef CTRACE_PROTOS_H
#define CTRACE_PROTOS_H

enum ctrace_proto_kind {
	CTRACE_PROTO_VOID = 0, /* no value; in a list: its end */
	CTRACE_PROTO_INT,      /* int */
	CTRACE_PROTO_UINT,     /* unsigned int */
	CTRACE_PROTO_LONG,     /* long */
	CTRACE_PROTO_ULONG,    /* unsigned long */
	CTRACE_PROTO_LLONG,    /* long long */
	CTRACE_PROTO_ULLONG,   /* unsigned long long */
	CTRACE_PROTO_SIZE,     /* size_t */
	CTRACE_PROTO_SSIZE,    /* ssize_t */
	CTRACE_PROTO_OFF,      /* off_t */
	CTRACE_PROTO_MODE,     /* mode_t, in octal */
	CTRACE_PROTO_FD,       /* int, a file descriptor */
	CTRACE_PROTO_OFLAGS,   /* int, open(2)'s flags, by name */
	CTRACE_PROTO_CHAR,     /* int, a character (or EOF) */
	CTRACE_PROTO_CSTR,     /* const char *: its text saved at the call */
	CTRACE_PROTO_BUF,      /* char *: a buffer the function fills */
	CTRACE_PROTO_PTR,      /* void * */
	CTRACE_PROTO_CPTR,     /* const void * */
	CTRACE_PROTO_FILE,     /* FILE * */
	CTRACE_PROTO_PTHREAD,  /* pthread_t */
	CTRACE_PROTO_DOUBLE,   /* double */
	CTRACE_PROTO_FLOAT,    /* float */
	/* _Complex long double: passed in memory (x86-64: 32 bytes of the
	 * stack, i386: 24), returned in st0 and st1 (x86-64) or in the
	 * caller's memory (i386: its address first on the stack, and
	 * back in eax) */
	CTRACE_PROTO_CLDOUBLE,
	CTRACE_PROTO_N_KINDS
};

#define CTRACE_PROTO_MAX_ARGS 6

/* Whether a kind travels in a floating-point register. */
#define CTRACE_PROTO_IS_FP(k)                                                \
	((k) == CTRACE_PROTO_DOUBLE || (k) == CTRACE_PROTO_FLOAT)

/* Whether a kind is passed in memory: on x86-64, on the stack. */
#define CTRACE_PROTO_IS_MEM(k) ((k) == CTRACE_PROTO_CLDOUBLE)

/* The 4-byte words a kind takes on the i386 stack (and its size there,
 * in words: off_t is the 32-bit one, the unsuffixed functions'). */
#define CTRACE_PROTO_WORDS32(k)                                              \
	((k) == CTRACE_PROTO_CLDOUBLE ? 6                                     \
	 : (k) == CTRACE_PROTO_LLONG || (k) == CTRACE_PROTO_ULLONG ||         \
		   (k) == CTRACE_PROTO_DOUBLE                                  \
	     ? 2                                                               \
	     : 1)

#endif /* CTRACE_PROTOS_H */
