/* crosscu.h -- functions inlined in one compilation unit (crosscu-b.c)
 * whose one out-of-line copy, the address the hooks of every copy give,
 * is another unit's (crosscu-a.c): C99 inline definitions here, their
 * external definitions there.  Each unit describes the functions in its
 * own DWARF. */
extern volatile int crosscu_sink;

inline void crosscu_inner(int x)
{
	crosscu_sink += x;
}

inline void crosscu_outer(int x)
{
	crosscu_inner(x);
	crosscu_inner(x + 1);
}
