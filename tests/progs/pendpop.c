/* pendpop.c -- gcc -O2 calls release()'s entry hook, inlined into main,
 * before it pops the stack arguments of the call to lookup() just made,
 * and the hooks of hdr_of(), inlined into release(), after the pops: the
 * copies' hooks run at different stack pointers in one frame. */
typedef struct {
	long v;
	long tag;
} Val;

typedef struct {
	int rc;
} Hdr;

__attribute__((noinline)) Val lookup(void *c, Val o, int a, Val t, int f)
{
	Val r = {o.v + a + t.v + f, o.tag};
	(void)c;
	return r;
}

__attribute__((noinline)) void release_slow(void *c, Val v)
{
	(void)c;
	((Hdr *)v.v)->rc = 100;
}

static inline Hdr *hdr_of(void *p)
{
	return (Hdr *)p;
}

static inline void release(void *c, Val v)
{
	if ((unsigned long)v.tag >= 0xfffffff6ul) {
		Hdr *h = hdr_of((void *)v.v);
		if (--h->rc <= 0)
			release_slow(c, v);
	}
}

Hdr hs[8];
Val out[8];
long tags[8] = {-1, -2, 3, -4};

int main(void)
{
	for (int i = 0; i < 4; i++) {
		Val o = {(long)&hs[i], tags[i]};
		hs[i].rc = 2;
		out[i] = lookup(hs, o, 0, o, 0);
		release(hs, o);
	}
	return 0;
}
