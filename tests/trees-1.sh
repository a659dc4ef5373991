#!/bin/sh
# trees-1.sh -- tests/trees.sh on part 1 of 3 of its configurations (see
# configs_part in tests/lib.sh).
CTRACE_TEST_PART=1/3
CTRACE_TEST_NAME=trees-1
export CTRACE_TEST_PART CTRACE_TEST_NAME
exec ${CONFIG_SHELL:-/bin/sh} "$(dirname "$0")/trees.sh"
