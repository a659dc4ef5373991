#!/bin/sh
# gcc.sh -- the resolver test matrix with $CC (see matrix.sh).
COMPILERS=gcc
. "${top_srcdir:-.}/tests/resolve/matrix.sh"
