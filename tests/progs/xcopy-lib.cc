// xcopy-lib.cc -- a shared library, not instrumented, holding the
// instantiation of xcopy.hh's Box<int>.
#include "xcopy.hh"

template struct Box<int>;
