/* libcall-uftrace.c -- library calls of every kind in one run, built
 * once with -finstrument-functions (ctrace) and once with -pg (uftrace),
 * whose trees tests/libcall-uftrace.sh compares: libc with callbacks
 * (qsort and bsearch calling a comparator that calls strcmp, exit running
 * an atexit handler), libm, an uninstrumented shared library, a thread,
 * a comparator that longjmps out of qsort, and a plugin (argv[2], when
 * given) loaded with dlopen and called through dlsym's pointer.
 * Own functions are never inlined (-pg keeps no trace of an inlined
 * function, -finstrument-functions does), and every value comes from the
 * command line so that no compiler folds a call away. */
/* glibc's headers define bsearch inline when optimising, and clang -O2
 * inlines it into the -pg build but not into the -finstrument-functions
 * one: the headers' inline functions are left out, so that both builds
 * call the library's. */
#define __NO_INLINE__ 1
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

int plain_sum(const char *s); /* libplain.so, not instrumented */

static const char *words[] = {"pear", "apple", "fig", "kiwi"};

static NOINLINE int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static jmp_buf out;

/* Leaves qsort by longjmp at its first comparison. */
static NOINLINE int bail(const void *a, const void *b)
{
	if (strcmp(*(const char *const *)a, *(const char *const *)b) != 2)
		longjmp(out, 1);
	return 0;
}

static NOINLINE void bye(void)
{
	printf("bye %d\n", (int)words[0][0]);
}

static NOINLINE void *worker(void *arg)
{
	return (void *)strlen((const char *)arg);
}

static NOINLINE double maths(double x)
{
	return sqrt(x) + pow(x, 1.5);
}

int main(int argc, char **argv)
{
	char *volatile p = malloc((size_t)argc + 8);
	printf("%d\n", (int)strlen(argv[0]) > 0);
	free(p);
	const char *v[4];
	for (int i = 0; i < 4; i++)
		v[i] = words[(i + argc - 1) % 4];
	qsort(v, 4, sizeof v[0], by_name);
	const char *key = argc > 1 ? argv[1] : "fig";
	const char **hit = bsearch(&key, v, 4, sizeof v[0], by_name);
	printf("%d\n", hit != NULL);
	if (setjmp(out) == 0)
		qsort(v, 4, sizeof v[0], bail);
	puts("out");
	/* sqrt of a negative number: the library's, also where the
	 * compiler computes the square root of a positive one inline. */
	printf("%d\n", maths((double)argc * 2.5) > 0.0);
	printf("%d\n", maths(-(double)argc) > 0.0);
	printf("%d\n", plain_sum(argv[0]) > 0);
	pthread_t th;
	void *r;
	pthread_create(&th, NULL, worker, argv[0]);
	pthread_join(th, &r);
	printf("%d\n", r != NULL);
	if (argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		if (h == NULL)
			return 1;
		int (*f)(const char *) =
			(int (*)(const char *))dlsym(h, "plug_len");
		printf("%d\n", f(argv[0]) > 0);
		dlclose(h);
	}
	atexit(bye);
	exit(0);
}
