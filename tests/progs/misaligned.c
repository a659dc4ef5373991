/* misaligned.c -- an instrumented function called on a misaligned stack,
 * as hand-written assembly may call it: its own code needs no alignment
 * (no aligned stack slot), so the program runs untraced; traced, its
 * hooks, its library call and its return run on that stack too.  With a
 * library's path as third argument, its plugin_leaf (loaded with dlopen,
 * misaligned-plugin.c) is called so instead: the recorder notices the
 * library at that function's first entry, on that stack.  Built with
 * -DUNTRACED_MAIN, main and a thread's start routine are not instrumented:
 * leaf's entry is each thread's first event (the process's too), on
 * that stack. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int leaf(const char *s, int x)
{
	return (int)strlen(s) * 3 + x;
}

int call_misaligned(const char *s, int x);
int call_misaligned_ptr(int (*f)(const char *, int), const char *s, int x);
#if defined(__x86_64__)
/* A call leaves rsp 16-byte aligned; this one leaves it 8 bytes off. */
__asm__(".text\n"
	".globl call_misaligned\n"
	".type call_misaligned, @function\n"
	"call_misaligned:\n"
	"\tsubq $16, %rsp\n"
	"\tcall leaf\n"
	"\taddq $16, %rsp\n"
	"\tret\n"
	".globl call_misaligned_ptr\n"
	".type call_misaligned_ptr, @function\n"
	"call_misaligned_ptr:\n"
	"\tmovq %rdi, %rax\n"
	"\tmovq %rsi, %rdi\n"
	"\tmovl %edx, %esi\n"
	"\tsubq $16, %rsp\n"
	"\tcall *%rax\n"
	"\taddq $16, %rsp\n"
	"\tret\n");
#elif defined(__i386__)
/* The same, 8 bytes off: s and x pushed again below an odd gap. */
__asm__(".text\n"
	".globl call_misaligned\n"
	".type call_misaligned, @function\n"
	"call_misaligned:\n"
	"\tsubl $8, %esp\n"
	"\tpushl 16(%esp)\n"
	"\tpushl 16(%esp)\n"
	"\tcall leaf\n"
	"\taddl $16, %esp\n"
	"\tret\n"
	".globl call_misaligned_ptr\n"
	".type call_misaligned_ptr, @function\n"
	"call_misaligned_ptr:\n"
	"\tmovl 4(%esp), %eax\n"
	"\tsubl $8, %esp\n"
	"\tpushl 20(%esp)\n"
	"\tpushl 20(%esp)\n"
	"\tcall *%eax\n"
	"\taddl $16, %esp\n"
	"\tret\n");
#endif

#ifdef UNTRACED_MAIN
#define UNTRACED __attribute__((no_instrument_function))
#else
#define UNTRACED
#endif

#ifdef UNTRACED_MAIN
static const char *thread_s;

UNTRACED static void *thread_run(void *arg)
{
	(void)arg;
	printf("thread leaf %d\n", call_misaligned(thread_s, 7));
	return NULL;
}
#endif

UNTRACED int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "abc";
	int n = argc > 2 ? atoi(argv[2]) : 3;
	if (argc > 3) {
		void *h = dlopen(argv[3], RTLD_NOW);
		void *f = h ? dlsym(h, "plugin_leaf") : NULL;
		if (f == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		int (*leaf_p)(const char *, int);
		*(void **)&leaf_p = f;
		for (int i = 0; i < n; i++)
			printf("plugin_leaf %d %d\n", i,
			       call_misaligned_ptr(leaf_p, s, i));
		return 0;
	}
	for (int i = 0; i < n; i++)
		printf("leaf %d %d\n", i, call_misaligned(s, i));
#ifdef UNTRACED_MAIN
	/* a thread whose first event is leaf's too */
	pthread_t t;
	thread_s = s;
	fflush(stdout);
	if (pthread_create(&t, NULL, thread_run, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		return 1;
#endif
	return 0;
}
