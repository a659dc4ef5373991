# rel.sh -- sourced by the scripts of tests/reliability: tests/lib.sh and
# where this directory's programs and expected trees are.
. "$(dirname "$0")/../lib.sh"
tests_srcdir=$top_srcdir/tests # tree-check.awk, lsan.supp
REL=$top_srcdir/tests/reliability
RPROGS=$REL/progs

# rel_expected NAME: tests/reliability/expected/NAME.tree, or its variant
# for the compiler family (NAME.clang.tree) when there is one.
rel_expected() {
	if [ -f "$REL/expected/$1.$CUR_FAMILY$CUR_OPT.tree" ]; then
		echo "$REL/expected/$1.$CUR_FAMILY$CUR_OPT.tree"
	elif [ -f "$REL/expected/$1.$CUR_FAMILY.tree" ]; then
		echo "$REL/expected/$1.$CUR_FAMILY.tree"
	else
		echo "$REL/expected/$1.tree"
	fi
}

# rel_tree NAME TRACE [nocheck]: the stable tree of TRACE must be NAME's,
# and well formed (unless nocheck: tree-check.awk refuses returns of calls
# entered before the trace inside a call, which a resumed coroutine makes).
rel_tree() {
	symbolize_stable "tree-$1" "$2"
	compare "$(rel_expected "$1")" "tree-$1"
	[ "${3:-}" = nocheck ] || check_tree "tree-$1" >/dev/null
}
