#!/bin/sh
# nonlocal.sh -- calls left without their exit: siglongjmp out of a
# SIGSEGV handler on an alternate stack, a coroutine (swapcontext) that
# yields from nested calls, and a call with a big frame after longjmp.

. "$(dirname "$0")/rel.sh"
test_init reliability-nonlocal

case_tree() {
	use_config "$1"
	build_c nonlocal "$RPROGS/nonlocal.c"
	run_traced trace.bin "$BIN/nonlocal" "$2"
	rel_tree "$3" trace.bin ${4:-}
}

# After longjmp, a call whose frame is larger than the abandoned frames'
# can show one or two levels too deep (see README, Guarantees and
# limits); the next return further out corrects the depth: the tree stays
# well formed and the calls after it are at their true depth.
case_sibling() {
	use_config "$1"
	build_c nonlocal "$RPROGS/nonlocal.c"
	run_traced trace.bin "$BIN/nonlocal" sibling
	symbolize_stable tree trace.bin
	check_tree tree >/dev/null
	tree_text tree | tail -n 3 >tail
	printf '  } /* sibling */\n  leaf();\n} /* main */\n' >want
	compare want tail
}

for cfg in $(configs_pie); do
	run_case "segv-altstack-$cfg" case_tree "$cfg" segv segv-altstack
	run_case "coroutine-$cfg" case_tree "$cfg" coroutine coroutine nocheck
	run_case "sibling-$cfg" case_sibling "$cfg"
done

test_finish
