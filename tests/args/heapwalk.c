/* heapwalk.c -- calls given pointers into two heap arrays, one element on
 * from the last call, which the recorder writes relative to their values
 * in the previous call (format 5.3).  Prints each call as the tree shows
 * it: the oracle. */
#include <stdio.h>
#include <stdlib.h>

#define N 3000

__attribute__((noinline)) int walk(int *p, long *q, int i)
{
	return *p + (int)*q + i;
}

/* Another function, its registers in another order: the bases are the
 * registers', whichever function wrote them last. */
__attribute__((noinline)) int back(long *q, int *p)
{
	return (int)*q - *p;
}

int main(void)
{
	int *a = malloc(N * sizeof *a);
	long *b = malloc(N * sizeof *b);
	int s = 0;
	if (a == NULL || b == NULL)
		return 1;
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	for (int i = 0; i < N; i++) {
		s += walk(&a[i], &b[N - 1 - i], i);
		if (i % 7 == 0)
			s += back(&b[i], &a[N - 1 - i]);
	}
	for (int i = 0; i < N; i++) {
		printf("walk(p=%p, q=%p, i=%d)\n", (void *)&a[i],
		       (void *)&b[N - 1 - i], i);
		if (i % 7 == 0)
			printf("back(q=%p, p=%p)\n", (void *)&b[i],
			       (void *)&a[N - 1 - i]);
	}
	free(a);
	free(b);
	return s == 42;
}
