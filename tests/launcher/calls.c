/* calls.c -- a program that makes the calls its argument spells, one
 * letter a call (a to h: fa to fh; a capital letter calls the function
 * with 1, not 0), for ctrace diff's alignment. */
#define NI __attribute__((noinline))

static volatile int sink;

NI void fa(int x) { sink = x; }
NI void fb(int x) { sink = x; }
NI void fc(int x) { sink = x; }
NI void fd(int x) { sink = x; }
NI void fe(int x) { sink = x; }
NI void ff(int x) { sink = x; }
NI void fg(int x) { sink = x; }
NI void fh(int x) { sink = x; }

static void (*const fns[])(int) = {fa, fb, fc, fd, fe, ff, fg, fh};

int main(int argc, char **argv)
{
	for (const char *p = argc > 1 ? argv[1] : ""; *p; p++) {
		if (*p >= 'a' && *p <= 'h')
			fns[*p - 'a'](0);
		else if (*p >= 'A' && *p <= 'H')
			fns[*p - 'A'](1);
	}
	return 0;
}
