/* libcall.c -- library calls: libc with callbacks, threads, libm, an
 * uninstrumented shared library, longjmp through a library call.  The
 * calls are made so that no compiler folds them away at -O2 (values from
 * the command line, results used). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plain_sum(const char *s); /* libplain.so, not instrumented */

/* glibc's bsearch is an inline function at -O2: the library's, by its
 * symbol. */
extern void *bsearch_call(const void *, const void *, size_t, size_t,
			  int (*)(const void *, const void *))
	__asm__("bsearch");

static const char *words[] = {"pear", "apple", "fig", "kiwi"};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void bye(void)
{
	printf("bye %d\n", 1);
}

static void *worker(void *arg)
{
	size_t n = strlen((const char *)arg);
	return (void *)n;
}

static jmp_buf jb;

static int jumper(const void *a, const void *b)
{
	(void)a;
	(void)b;
	longjmp(jb, 1);
}

static void after_jump(int n)
{
	printf("after %d\n", n);
}

int main(int argc, char **argv)
{
	/* the mode's first letter: no strcmp of its own in the tree */
	char mode = argc > 1 ? argv[1][0] : 'c';
	if (mode == 'c') {
		char *volatile p = malloc((size_t)argc + 8);
		printf("%d\n", (int)strlen(argv[0]) > 0);
		free(p);
		const char *v[4];
		memcpy(v, words, sizeof v);
		qsort(v, 2, sizeof v[0], by_name);
		const char *key = "pear";
		const char **hit = bsearch_call(&key, v, 2, sizeof v[0],
						by_name);
		printf("%d\n", hit != NULL);
		atexit(bye);
		exit(0);
	}
	if (mode == 't') {
		pthread_t th;
		void *r;
		pthread_create(&th, NULL, worker, argv[0]);
		pthread_join(th, &r);
		printf("%d\n", r != NULL);
	}
	if (mode == 'm') {
		double x = cbrt((double)argc * 9.0);
		printf("%d\n", x > 1.0);
	}
	if (mode == 'p')
		printf("%d\n", plain_sum(argv[0]) > 0);
	if (mode == 'n') {
		/* argv[2] rounds of malloc, strlen and free, some skipped */
		int n = argc > 2 ? atoi(argv[2]) : 0, sum = 0;
		for (int i = 0; i < n; i++) {
			char *volatile q = malloc((size_t)i + 1);
			if (i % 3)
				sum += (int)strlen(argv[i % argc]);
			if (i % 5)
				free(q);
		}
		printf("%d\n", sum);
	}
	if (mode == 'j') {
		const char *v[2] = {"b", "a"};
		if (!setjmp(jb))
			qsort(v, 2, sizeof v[0], jumper);
		after_jump(argc);
	}
	return 0;
}
