/* crosscu-a.c -- the external definitions of crosscu.h's functions
 * (see there), linked first. */
#include "crosscu.h"

volatile int crosscu_sink;

extern inline void crosscu_inner(int x);
extern inline void crosscu_outer(int x);
