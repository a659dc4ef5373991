// crosscu.hh -- member functions inlined in one compilation unit
// (crosscu-b.cc) whose out-of-line copy the linker keeps, the address the
// hooks of every copy give, is another unit's (crosscu-a.cc, linked
// first): each unit describes the class in its own DWARF.
extern volatile int crosscu_sink;

struct Acc {
	int v;
	Acc() : v(0) {}
	void add(int x)
	{
		v += x;
		crosscu_sink += x;
	}
	void twice(int x)
	{
		add(x);
		add(x + 1);
	}
};
