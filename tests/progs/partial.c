/* partial.c -- gcc's partial inlining (-fpartial-inlining, on from -O2):
 * visit() is a cheap test followed by a large body, so gcc splits the body
 * into visit.part.0 and inlines the test into visit's callers, the
 * recursive call in visit.part.0 included.  The entry hook then runs in
 * the caller's frame (an inlined copy) and the exit hook in
 * visit.part.0's own, with another call site. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	int kind, n;
	char name[16];
	struct node *next;
};

static volatile int sink;

__attribute__((noinline)) static void note(const char *name, int i)
{
	sink += (int)strlen(name) + i;
}

void visit(struct node *o)
{
	if (o->kind != 3)
		return;
	for (int i = 0; i < o->n; i++) {
		sink += i;
		note(o->name, i);
	}
	snprintf(o->name, sizeof o->name, "seen%d", o->n);
	sink += (int)strlen(o->name);
	if (o->next)
		visit(o->next);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3;
	struct node o[4] = {{3, 2, "a", NULL}, {3, 1, "b", NULL},
			    {0, 1, "c", NULL}, {3, 0, "d", NULL}};

	o[0].next = &o[1];
	o[1].next = &o[2];
	for (int i = 0; i < rounds * 4; i++)
		visit(&o[i % 4]);
	printf("%d\n", sink);
	return 0;
}
