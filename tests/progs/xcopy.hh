// xcopy.hh -- a class template whose instantiation for int the program
// declares extern, as libstdc++'s headers declare basic_string<char>:
// the program inlines its members but takes their addresses, which its
// copies' hooks are given, through its GOT, which the loader binds to
// the library's copies (xcopy-lib.cc).
template <class T> struct Box {
	T v;
	T twice(T x)
	{
		v += x;
		return v * 2;
	}
	T inner(T x)
	{
		return twice(x) + 1;
	}
};
extern template struct Box<int>;
