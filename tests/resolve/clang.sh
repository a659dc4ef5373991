#!/bin/sh
# clang.sh -- the resolver test matrix with $CLANG (see matrix.sh); skipped
# when configure found no clang.
if [ -z "${CLANG:-}" ]; then
	echo "skip: CLANG is not set"
	exit 77
fi
COMPILERS=clang
. "${top_srcdir:-.}/tests/resolve/matrix.sh"
