#!/bin/sh
# crashers.sh -- every input the fuzz target (fuzz/) found a bug with,
# replayed through the symbolizer (and its sanitized build, when there is
# one): exit status 0 or 1 with a message, never a signal or a sanitizer
# report.

. "$(dirname "$0")/rel.sh"
test_init reliability-crashers

case_replay() {
	for f in "$REL"/crashers/*; do
		[ -f "$f" ] || continue
		for fmt in $("$1" --list-formats | cut -f1); do
			"$1" -f "$fmt" --no-duration -o out "$f" 2>err
			status=$?
			echo "$(basename "$f") $fmt: $status"
			case $status in
			0) ;;
			1) grep -q "^ctrace-symbolize: " err ||
				fail "$f: status 1 without a message" ;;
			*) cat err; fail "$f: $fmt: exit status $status" ;;
			esac
		done
	done
}

run_case replay case_replay "$CTRACE_SYMBOLIZE"
san=$top_builddir/tests/ctrace-symbolize-san
if [ "$HAVE_SANITIZERS" = yes ] && [ -x "$san" ]; then
	ASAN_OPTIONS=detect_leaks=0:exitcode=86
	UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1
	export ASAN_OPTIONS UBSAN_OPTIONS
	run_case replay-sanitized case_replay "$san"
fi

test_finish
