#!/bin/sh
# nonlocal-1.sh -- tests/reliability/nonlocal.sh, part 1 of 2: the
# single-stepped cases (see in_part there).
CTRACE_TEST_PART=1/2
CTRACE_TEST_NAME=reliability-nonlocal-1
export CTRACE_TEST_PART CTRACE_TEST_NAME
exec ${CONFIG_SHELL:-/bin/sh} "$(dirname "$0")/nonlocal.sh"
