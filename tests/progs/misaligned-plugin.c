/* misaligned-plugin.c -- an instrumented function of a library loaded
 * with dlopen(), which misaligned.c calls on a misaligned stack. */

__attribute__((noinline)) int plugin_leaf(const char *s, int x)
{
	int n = 0;
	while (s[n] != '\0')
		n++;
	return n * 5 + x;
}
