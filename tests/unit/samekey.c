/* samekey.c -- dw_same_key (symbolizer/values/dwinfo.c): which names of
 * functions from two compilation units or objects are one function's.
 * A constructor's or destructor's ELF symbol (C1, C2, D0...) is its
 * DWARF declaration's (C4, D4); nothing else that differs is. */
#include <stdbool.h>
#include <stddef.h>

#include "values/dwinfo.h"
#include "tap.h"

static const struct {
	const char *a, *b;
	bool same;
} cases[] = {
	{"_Z3fooi", "_Z3fooi", true},
	{"main", "main", true},
	{"_Z3fooi", "_Z3fool", false},
	{"_ZN3FooC1Ev", "_ZN3FooC4Ev", true},
	{"_ZN3FooC4Ev", "_ZN3FooC2Ev", true},
	{"_ZN3FooC3Ev", "_ZN3FooC4Ev", true},
	{"_ZN3FooD0Ev", "_ZN3FooD4Ev", true},
	{"_ZN3FooD2Ev", "_ZN3FooD4Ev", true},
	{"_ZN3FooC1IiEET_", "_ZN3FooC4IiEET_", true},
	{"_ZN3FooC1Ev", "_ZN3FooC2Ev", false},  /* two variants */
	{"_ZN3FooD3Ev", "_ZN3FooD4Ev", false},  /* no such variant */
	{"_ZN3FooC5Ev", "_ZN3FooC4Ev", false},
	{"MX_ADC1_Init", "MX_ADC4_Init", false}, /* C, not mangled */
	{"_ZN2C14fooEv", "_ZN2C44fooEv", false}, /* classes C1 and C4 */
	{"_ZN3FooC1Ev", "_ZN3FooC1E", false},
	{"_ZN3FooC1E", "_ZN3FooC4Ev", false},
	{"", "", true},
	{"", "_Z1fv", false},
};

int main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	tap_plan((int)(2 * n));
	for (size_t i = 0; i < n; i++) {
		tap_ok(dw_same_key(cases[i].a, cases[i].b) == cases[i].same,
		       "%s %s %s", cases[i].a, cases[i].same ? "is" : "is not",
		       cases[i].b);
		tap_ok(dw_same_key(cases[i].b, cases[i].a) == cases[i].same,
		       "%s %s %s (the other way)", cases[i].b,
		       cases[i].same ? "is" : "is not", cases[i].a);
	}
	return tap_done();
}
