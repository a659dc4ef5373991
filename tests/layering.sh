#!/bin/sh
# layering.sh -- no two files of lib/ (or of tools/) call each other: from
# `nm' of the built objects, file A depends on file B when A uses a symbol
# B defines; a pair that depends both ways fails.  Each directory is one
# case.

. "$(dirname "$0")/lib.sh"
test_init layering

# Pairs that call each other still, one "A B" a line (A before B in the
# order of `sort'): a pair listed here that no longer calls both ways
# fails too, so that the list only shrinks.
# - retval/retval_stub: one concern in two languages, the return
#   trampoline (retval_stub.S) and its C side (retval.c), which puts the
#   trampoline's address in the frames it patches.
# - plt/plt_stub: the same for library calls' trampolines (plt_stub.S)
#   and the C side that points the GOT slots at them.
KNOWN_LIB='plt plt_stub
retval retval_stub'
KNOWN_TOOLS=''

# circles PREFIX OBJECT...: the pairs of files (named without PREFIX and
# .o) that use each other's symbols, "A B" with A < B, sorted.
circles() {
	prefix=$1
	shift
	for o in "$@"; do
		name=${o##*/}
		name=${name#"$prefix"}
		name=${name%.o}
		nm "$o" | awk -v f="$name" '
			NF == 2 && $1 == "U" { print "U", f, $2 }
			NF == 3 && $2 ~ /^[TDBRVWC]$/ { print "D", f, $3 }'
	done | awk '
		$1 == "D" { def[$3] = $2; next }
		{ use[NR] = $2 " " $3 }
		END {
			for (i in use) {
				split(use[i], u, " ")
				if ((u[2] in def) && def[u[2]] != u[1])
					dep[u[1] " " def[u[2]]] = 1
			}
			for (d in dep) {
				split(d, p, " ")
				if (p[1] < p[2] && ((p[2] " " p[1]) in dep))
					print p[1], p[2]
			}
		}' | sort
}

# check_dir DIR PREFIX KNOWN: DIR's objects named PREFIX*.o.
check_dir() {
	set -- "$1" "$2" "$3"
	ls "$top_builddir/$1/$2"*.o >/dev/null 2>&1 ||
		skip "no object built in $1/"
	circles "$2" "$top_builddir/$1/$2"*.o >found
	[ -n "$3" ] && printf '%s\n' "$3" | sort >known || : >known
	new=$(comm -23 found known | tr '\n' ',')
	gone=$(comm -13 found known | tr '\n' ',')
	[ -z "$new" ] || fail "$1/: files that call each other: $new"
	[ -z "$gone" ] ||
		fail "$1/: no longer circular, take out of the known list: $gone"
}

case_lib() {
	check_dir lib lib_libctrace_a- "$KNOWN_LIB"
}

case_tools() {
	check_dir tools ctrace- "$KNOWN_TOOLS"
}

run_case lib case_lib
run_case tools case_tools
test_finish
