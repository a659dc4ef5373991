#!/bin/sh
# bench/callgrind.sh -- instructions per call spent in the recorder's hooks.
#
#   bench/callgrind.sh [--lib DIR] [--include DIR] [--symbolize PATH]
#                      [--values] [--keep] [FIB SORT INTERP]
#
# Runs a small workload built with -finstrument-functions and libctrace.a
# under valgrind --tool=callgrind and divides the instructions executed in
# __cyg_profile_func_enter/exit (everything they call included) by the
# number of calls.  Instruction counts do not move with the machine's load,
# so this is the figure to watch while tuning the hot path; the time it takes
# is bench/run's business.  The same is done for empty hooks (the floor) and
# for the ctrace build run with CTRACE=off.
#
# With --values, a second table: the same workload built with -g and its
# capture plan (ctrace-symbolize --make-plan), recorded by default, with
# CTRACE_ARGS=all, CTRACE_RETVAL=all and both; the instructions of the whole
# program above those of the plain build, per call (the return trampoline
# runs outside the hooks, and is counted so), and the trace's bytes per
# event.
#
# Under valgrind the program runs many times slower while the time-stamp
# counter does not, so timestamp deltas take more bytes than they do natively
# and the ctrace figure comes out a few instructions high.
#
# The callgrind output is kept with --keep, for callgrind_annotate.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
libdir=lib
incdir=$here/../include
keep=no
values=no
symbolize=./ctrace-symbolize
while [ $# -gt 0 ]; do
	case $1 in
	--lib) libdir=$2; shift 2 ;;
	--include) incdir=$2; shift 2 ;;
	--symbolize) symbolize=$2; shift 2 ;;
	--values) values=yes; shift ;;
	--keep) keep=yes; shift ;;
	-h|--help) sed -n '2,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "callgrind.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
# Small: callgrind runs the program about 50 times slower.
sizes=${*:-20 20000 200000}
cc=${CC:-gcc}

for tool in valgrind callgrind_annotate; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "callgrind.sh: $tool not found (apt-get install valgrind)" >&2
		exit 0
	fi
done
if [ ! -f "$libdir/libctrace.a" ]; then
	echo "callgrind.sh: $libdir/libctrace.a not found (use --lib DIR)" >&2
	exit 2
fi
lib=$(cd "$libdir" && pwd)/libctrace.a

work=$(mktemp -d "${TMPDIR:-/tmp}/ctrace-callgrind.XXXXXX")
if [ $keep = no ]; then
	trap 'rm -rf "$work"' EXIT
fi

# shellcheck disable=SC2086 # CC and sizes are word lists on purpose
{
	$cc -O2 -g -DCOUNT_CALLS -o "$work/work-count" "$here/work.c" -pthread
	$cc -O2 -g -finstrument-functions -o "$work/work-empty" \
		"$here/work.c" "$here/hooks_empty.c" -pthread
	$cc -O2 -g -finstrument-functions -I"$incdir" -o "$work/work-ctrace" \
		"$here/work.c" "$lib" -pthread
}

# shellcheck disable=SC2086
calls=$("$work/work-count" st $sizes | sed -n 's/.* calls=\([0-9]*\).*/\1/p')
if [ -z "$calls" ]; then
	echo "callgrind.sh: could not count the calls" >&2
	exit 1
fi

# Inclusive instructions of one function, from callgrind_annotate's listing.
inclusive() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v fn="$2" '
		# With -g, code inlined from other files gets lines of its own;
		# the largest figure is the whole function.
		index($0, ":" fn " ") || index($0, ":" fn "'"'"'") {
			n = $1; gsub(/,/, "", n)
			if (n ~ /^[0-9]+$/ && n + 0 > max) max = n + 0
		}
		END { print max + 0 }'
}

echo "workload: work st $sizes ($calls calls), instructions per call:"
echo
echo "| hooks | enter | exit | total |"
echo "| --- | ---: | ---: | ---: |"
for variant in empty ctrace off; do
	out=$work/callgrind.$variant.out
	case $variant in
	off) program="work-ctrace"; switch=off ;;
	*) program="work-$variant"; switch=on ;;
	esac
	rm -f "$work/trace.bin"
	# shellcheck disable=SC2086
	(cd "$work" && CTRACE=$switch CTRACE_OUTPUT="$work/trace.bin" valgrind -q \
		--tool=callgrind --callgrind-out-file="$out" \
		"./$program" st $sizes >/dev/null)
	enter=$(inclusive "$out" __cyg_profile_func_enter)
	exit_=$(inclusive "$out" __cyg_profile_func_exit)
	awk -v v="$variant" -v a="${enter:-0}" -v b="${exit_:-0}" -v n="$calls" \
		'BEGIN { printf "| %s | %.1f | %.1f | %.1f |\n", v, a / n, b / n, (a + b) / n }'
done
echo
if [ $values = yes ]; then
	# Whole-program instructions (callgrind's "Collected" line).
	collected() {
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1"
	}
	$cc -O2 -g -o "$work/work-plain" "$here/work.c" -pthread
	$cc -O2 -g -finstrument-functions -I"$incdir" -o "$work/work-ctrace-g" \
		"$here/work.c" "$lib" -pthread
	"$symbolize" --make-plan -o "$work/work.plan" "$work/work-ctrace-g" \
		>/dev/null
	# shellcheck disable=SC2086
	(cd "$work" && valgrind --tool=callgrind \
		--callgrind-out-file=/dev/null ./work-plain st $sizes \
		>/dev/null 2>"$work/plain.log")
	plain=$(collected "$work/plain.log")
	echo "whole program, instructions per call above the plain build:"
	echo
	echo "| mode (with the plan) | instructions/call | bytes/event |"
	echo "| --- | ---: | ---: |"
	for mode in default args retval args-retval; do
		case $mode in
		default) set -- ;;
		args) set -- CTRACE_ARGS=all ;;
		retval) set -- CTRACE_RETVAL=all ;;
		args-retval) set -- CTRACE_ARGS=all CTRACE_RETVAL=all ;;
		esac
		rm -f "$work/trace.bin"
		# shellcheck disable=SC2086
		(cd "$work" && env "$@" CTRACE_PLAN="$work/work.plan" \
			CTRACE_OUTPUT="$work/trace.bin" valgrind \
			--tool=callgrind --callgrind-out-file=/dev/null \
			./work-ctrace-g st $sizes >/dev/null 2>"$work/$mode.log")
		n=$(collected "$work/$mode.log")
		bytes=$(wc -c <"$work/trace.bin")
		awk -v m="$mode" -v a="${n:-0}" -v p="${plain:-0}" -v c="$calls" \
			-v b="$bytes" 'BEGIN { printf "| %s | %.1f | %.2f |\n",
				m, (a - p) / c, b / (2 * c) }'
	done
	echo
fi
if [ $keep = yes ]; then
	echo "callgrind output kept in $work (callgrind_annotate $work/callgrind.ctrace.out)"
fi
