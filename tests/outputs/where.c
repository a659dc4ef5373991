/* where.c -- calls for --where: opens that fail and succeed, lengths
 * under and over a limit, strings, a recursion; what it passes and gets
 * back depends on nothing but this file. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define NI __attribute__((noinline))

/* what a parameter is stored into lives at -O2 too */
static const char *volatile sink;

NI int open_file(const char *path)
{
	return open(path, O_RDONLY);
}

NI long parse(const char *buf, long len)
{
	sink = buf;
	return len > 4096 ? -1 : len / 2;
}

NI int greet(const char *who)
{
	return (int)strlen(who);
}

NI void load(const char *path, long len)
{
	int fd = open_file(path);
	if (fd >= 0)
		close(fd);
	parse(path, len);
}

NI int depth(int n)
{
	return n ? depth(n - 1) + 1 : greet("bottom");
}

int main(void)
{
	load("/", 100);
	load("/nonexistent/x", 5000);
	load("/", 8192);
	greet("foo");
	greet("barbaz");
	return depth(3) == 9 ? 0 : 1;
}
