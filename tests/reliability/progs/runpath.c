/* runpath.c -- calls host_run() of libhost.so (host.c), which loads
 * libgamma.so from its own plugins directory; prints the plugin's result
 * (gamma_entry(20) = 42). */
#include <stdio.h>

int host_run(const char *plugin, const char *entry);

int main(void)
{
	int r = host_run("libgamma.so", "gamma_entry");
	printf("%d\n", r);
	return r == 42 ? 0 : 1;
}
