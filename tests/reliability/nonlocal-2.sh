#!/bin/sh
# nonlocal-2.sh -- tests/reliability/nonlocal.sh on part 2 of 2 of its
# configurations (see configs_part in tests/lib.sh).
CTRACE_TEST_PART=2/2
CTRACE_TEST_NAME=reliability-nonlocal-2
export CTRACE_TEST_PART CTRACE_TEST_NAME
exec ${CONFIG_SHELL:-/bin/sh} "$(dirname "$0")/nonlocal.sh"
