#!/bin/sh
# trees-3.sh -- tests/trees.sh on part 3 of 3 of its configurations (see
# configs_part in tests/lib.sh).
CTRACE_TEST_PART=3/3
CTRACE_TEST_NAME=trees-3
export CTRACE_TEST_PART CTRACE_TEST_NAME
exec ${CONFIG_SHELL:-/bin/sh} "$(dirname "$0")/trees.sh"
