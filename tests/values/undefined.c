/* build: gcc -O0 x86_64 -- a program with undefined behaviour (a double
 * out of the range of int converted to int): its printed value is no
 * oracle, and run.py must report it as such, never compare with it. */
#include "../values/prelude.h"
NOINLINE int f0(int p0)
{
	sink = (unsigned long long)p0;
	return 1;
}
int main(void)
{
	volatile double big = 1e30;
	int a0 = (int)big;
	int id_ = open_call("f0");
	arg("p0"); pr_i((long long)a0); end_args();
	int res_ = f0(a0);
	result(id_); pr_i((long long)res_); end_result();
	return 0;
}
