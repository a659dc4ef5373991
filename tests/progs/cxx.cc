// cxx.cc -- C++ names: namespaces, class templates, constructors,
// destructors, operator(), virtual calls, function templates, static
// members and the anonymous namespace.
#include <cstdio>

#define NOINLINE __attribute__((noinline))

namespace ns {

template <typename T> class Stack {
public:
	NOINLINE Stack() : n_(0) {}
	NOINLINE void push(T v) { items_[n_++] = v; }
	NOINLINE T pop() { return items_[--n_]; }
	NOINLINE bool empty() const { return n_ == 0; }

private:
	T items_[8];
	int n_;
};

struct Adder {
	NOINLINE explicit Adder(int base) : base_(base) {}
	NOINLINE int operator()(int x) const { return base_ + x; }
	int base_;
};

template <typename T> NOINLINE T twice(T x)
{
	return x + x;
}

class Shape {
public:
	NOINLINE Shape() {}
	virtual int area() const = 0;

protected:
	// Trivial, so that destroying a Square calls nothing.
	~Shape() = default;
};

class Square : public Shape {
public:
	NOINLINE explicit Square(int side) : side_(side) {}
	NOINLINE int area() const override { return side_ * side_; }

private:
	int side_;
};

NOINLINE int total_area(const Shape &shape)
{
	return shape.area();
}

class Guard {
public:
	NOINLINE Guard() { ++live; }
	NOINLINE ~Guard() { --live; }
	NOINLINE static int count() { return live; }

private:
	static int live;
};

int Guard::live = 0;

} // namespace ns

namespace {

NOINLINE int helper(int x)
{
	return x * 3;
}

} // namespace

int main()
{
	ns::Stack<int> stack;
	stack.push(1);
	stack.push(ns::twice(2));
	ns::Adder add(10);
	int sum = add(stack.pop());	// 14
	sum += helper(stack.pop());	// 17
	if (!stack.empty())
		return 1;
	{
		ns::Guard guard;
		ns::Square square(3);
		sum += ns::total_area(square);	// 26
		sum += ns::Guard::count();	// 27
	}
	ns::Stack<double> reals;
	reals.push(ns::twice(1.5));
	sum += (int)reals.pop();	// 30
	std::printf("%d\n", sum);
	return sum == 30 ? 0 : 1;
}
