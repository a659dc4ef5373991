// crosscu-a.cc -- out-of-line copies of crosscu.hh's members (see
// there): their addresses taken.
#include "crosscu.hh"

volatile int crosscu_sink;
void (Acc::*crosscu_keep_add)(int) = &Acc::add;
void (Acc::*crosscu_keep_twice)(int) = &Acc::twice;
