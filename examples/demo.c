/* demo.c -- a small program to trace with ctrace.
 *
 * Build it with -finstrument-functions and link libctrace.a (`make demo`
 * does both, runs it and prints the call tree).  Each part shows something
 * the tree makes visible:
 *
 *   - a recursive-descent evaluator: calls nested as deep as the input,
 *   - qsort() calling our comparator through a function pointer: libc is
 *     not instrumented, so the comparator shows up directly under sort_words,
 *   - a static helper: static functions are named like any other,
 *   - fib() in a worker thread: a second thread id and a recursive tree.
 *
 * Every function is noinline so that the tree matches the source even when
 * someone builds the demo with optimisation.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------------
 * A tiny expression evaluator: digits, + - * / and parentheses.
 * --------------------------------------------------------------------- */

struct parser {
	const char *p;
};

NOINLINE long parse_sum(struct parser *ps);

NOINLINE long parse_number(struct parser *ps)
{
	long value = 0;

	while (*ps->p >= '0' && *ps->p <= '9')
		value = value * 10 + (*ps->p++ - '0');
	return value;
}

NOINLINE long parse_factor(struct parser *ps)
{
	if (*ps->p == '(') {
		ps->p++;
		long value = parse_sum(ps);
		if (*ps->p == ')')
			ps->p++;
		return value;
	}
	return parse_number(ps);
}

NOINLINE long parse_product(struct parser *ps)
{
	long value = parse_factor(ps);

	while (*ps->p == '*' || *ps->p == '/') {
		char op = *ps->p++;
		long rhs = parse_factor(ps);
		value = op == '*' ? value * rhs : (rhs ? value / rhs : 0);
	}
	return value;
}

NOINLINE long parse_sum(struct parser *ps)
{
	long value = parse_product(ps);

	while (*ps->p == '+' || *ps->p == '-') {
		char op = *ps->p++;
		long rhs = parse_product(ps);
		value = op == '+' ? value + rhs : value - rhs;
	}
	return value;
}

NOINLINE long evaluate(const char *expr)
{
	struct parser ps = { expr };

	return parse_sum(&ps);
}

/* ------------------------------------------------------------------------
 * Sorting through a function pointer
 * --------------------------------------------------------------------- */

/* Shorter words first, then alphabetical. */
NOINLINE int compare_words(const void *a, const void *b)
{
	const char *x = *(const char *const *)a;
	const char *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

NOINLINE void sort_words(const char **words, size_t n)
{
	qsort(words, n, sizeof(*words), compare_words);
}

/* Static: the symbolizer finds it in the symbol table all the same. */
static NOINLINE void print_words(const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s%s", words[i], i + 1 < n ? " " : "\n");
}

/* ------------------------------------------------------------------------
 * A worker thread
 * --------------------------------------------------------------------- */

NOINLINE int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOINLINE void *worker(void *arg)
{
	int n = *(int *)arg;

	printf("fib(%d) = %d\n", n, fib(n));
	return NULL;
}

int main(void)
{
	const char *expr = "2*(3+4)-5";
	const char *words[] = { "tree", "call", "trace", "hook", "exit" };
	size_t n_words = sizeof(words) / sizeof(words[0]);
	pthread_t thread;
	int n = 5;

	printf("%s = %ld\n", expr, evaluate(expr));

	sort_words(words, n_words);
	print_words(words, n_words);

	if (pthread_create(&thread, NULL, worker, &n) != 0) {
		fprintf(stderr, "demo: cannot create a thread\n");
		return 1;
	}
	pthread_join(thread, NULL);
	return 0;
}
