#!/bin/sh
# nonlocal-2.sh -- tests/reliability/nonlocal.sh, part 2 of 2: the cases
# other than the single-stepped ones (see in_part there).
CTRACE_TEST_PART=2/2
CTRACE_TEST_NAME=reliability-nonlocal-2
export CTRACE_TEST_PART CTRACE_TEST_NAME
exec ${CONFIG_SHELL:-/bin/sh} "$(dirname "$0")/nonlocal.sh"
