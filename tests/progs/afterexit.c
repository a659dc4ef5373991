/* afterexit.c -- afterexit N: main returns, then libafter.so's destructor
 * makes N calls of late_step(), after the trace was finished. */

void after_exit_calls(int n);

int main(int argc, char **argv)
{
	int n = 0;
	for (const char *d = argc > 1 ? argv[1] : "0"; *d >= '0' && *d <= '9';
	     d++)
		n = 10 * n + (*d - '0');
	after_exit_calls(n);
	return 0;
}
