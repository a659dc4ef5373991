/* callerframe.c -- parameters gcc describes as entry values (unused
 * after the entry hook, their registers not kept): found at main's call
 * sites, which pass constants and read no memory of main's frame. */
volatile int sink;

__attribute__((noinline)) void f(int x)
{
	sink = 1;
}

__attribute__((noinline)) void g(int x, int y)
{
	sink = y;
}

int main(void)
{
	f(5);
	f(7);
	g(3, 4);
	return 0;
}
