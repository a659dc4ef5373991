/* afterexit.c -- afterexit N M: N calls of step() before main returns,
 * then libafter.so's destructor makes M calls of late_step(), after the
 * trace was finished. */

#define NOINLINE __attribute__((noinline))

void after_exit_calls(int n);

NOINLINE static int step(int i)
{
	return i + 1;
}

static int number(const char *d)
{
	int n = 0;
	for (; *d >= '0' && *d <= '9'; d++)
		n = 10 * n + (*d - '0');
	return n;
}

int main(int argc, char **argv)
{
	volatile int sum = 0;
	int n = argc > 1 ? number(argv[1]) : 0;
	for (int i = 0; i < n; i++)
		sum += step(i);
	after_exit_calls(argc > 2 ? number(argv[2]) : 0);
	return 0;
}
