#!/bin/sh
# tui.sh -- ctrace tui on real instrumented programs, driven under tmux:
# the keys are sent with send-keys and each screen read back with
# capture-pane must be the expected one exactly (its empty rows left out
# of the comparison).  A screen is polled for until it comes or a bounded
# number of tries passes: no test waits a fixed time.  --no-duration and
# --thread-ids=serial make the screens independent of timing; the trees
# are those tests/calls.sh and tests/threads.sh check against the
# counting oracle.

. "$(dirname "$0")/lib.sh"
test_init tui

CTRACE=$top_builddir/ctrace
command -v tmux >/dev/null 2>&1 ||
	skip_script "tmux not found (Debian: apt-get install tmux)"

# tui_start ARGS...: ctrace tui ARGS in a 100x30 terminal of a tmux
# server of the case's own; its exit status goes to ./tui-status.
tui_start() {
	TMUX_SOCK=ctrace-tui-$$-$(basename "$PWD")
	export TMUX_SOCK
	rm -f tui-status
	printf '%s\n' "#!/bin/sh" "cd '$PWD'" "${TUI_ENV:-}" \
		"'$CTRACE' tui $* 2>tui-stderr; echo \$? >tui-status.tmp" \
		"mv tui-status.tmp tui-status" >run-tui
	chmod +x run-tui
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 30 \
		"$PWD/run-tui" || fail "tmux cannot start"
}

tui_stop() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
	return 0
}

tui_keys() {
	tmux -L "$TMUX_SOCK" send-keys -t 0 "$@" ||
		fail "tmux send-keys $* failed"
}

# screen NAME: poll the screen until it is the one on standard input (its
# empty rows left out), or fail after 2400 tries (two minutes at the
# least: a guard against a hang, generous for a loaded machine) with the
# difference.  $SCREEN_FILTER, if set, is a command the screen goes
# through first.
screen() {
	grep -v '^$' >"$1.expected"
	tries=0
	while :; do
		tmux -L "$TMUX_SOCK" capture-pane -p -t 0 2>/dev/null |
			grep -v '^$' | ${SCREEN_FILTER:-cat} >"$1.screen"
		cmp -s "$1.expected" "$1.screen" && return 0
		tries=$((tries + 1))
		if [ $tries -ge 2400 ]; then
			diff -u "$1.expected" "$1.screen"
			cat tui-stderr 2>/dev/null
			tui_stop
			fail "screen $1 not shown"
		fi
		sleep 0.05
	done
}

# quit_ok: q quits with status 0.
quit_ok() {
	tui_keys q
	tries=0
	while [ ! -f tui-status ]; do
		tries=$((tries + 1))
		[ $tries -lt 2400 ] || { tui_stop; fail "q did not quit"; }
		sleep 0.05
	done
	tui_stop
	[ "$(cat tui-status)" = 0 ] ||
		{ cat tui-stderr; fail "ctrace tui exited $(cat tui-status)"; }
}

funcptr_trace() {
	use_config "$1"
	build_c funcptr "$PROGS/funcptr.c"
	run_traced trace.bin "$BIN/funcptr"
	trap tui_stop EXIT
	tui_start --no-duration --thread-ids=serial trace.bin
	screen start <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 1 of 14                                                                 ?: help  q: quit
EOF
}

case_fold() {
	funcptr_trace "$1"
	tui_keys j j Enter
	screen fold-apply <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
>+           [     1] |   apply() { ... }
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 3 of 14                                                                 ?: help  q: quit
EOF
	# down passes over the folded call; Left folds, Right unfolds
	tui_keys j Left j j Left
	screen fold-more <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 +           [     1] |   apply() { ... }
 +           [     1] |   apply() { ... }
>+           [     1] |   square() { ... }
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 9 of 14                                                                 ?: help  q: quit
EOF
	tui_keys u Enter
	screen fold-main <<'EOF'
  # DURATION     TID     FUNCTION
>+           [     1] | main() { ... }
 tree: line 2 of 14                                                                 ?: help  q: quit
EOF
	tui_keys Enter j j Right
	screen unfold <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 +           [     1] |   apply() { ... }
>-           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 +           [     1] |   square() { ... }
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 6 of 14                                                                 ?: help  q: quit
EOF
	quit_ok
}

# With the durations (the default), the columns before the thread's
# differ from line to line (a call's duration is on its closing line);
# the calls nest all the same: main folds whole.
case_durations() {
	use_config "$1"
	build_c funcptr "$PROGS/funcptr.c"
	run_traced trace.bin "$BIN/funcptr"
	trap tui_stop EXIT
	tui_start --thread-ids=serial trace.bin
	tries=0
	until tmux -L "$TMUX_SOCK" capture-pane -p -t 0 2>/dev/null |
		grep -q ' tree: line 1 of 14 '; do
		tries=$((tries + 1))
		[ $tries -lt 2400 ] || { tui_stop; fail "no tree shown"; }
		sleep 0.05
	done
	tui_keys j Enter
	# the lines of the tree without their duration column
	SCREEN_FILTER=without_durations
	screen fold-main <<'EOF'
  # DURATION     TID     FUNCTION
>+ [     1] | main() { ... }
 tree: line 2 of 14                                                                 ?: help  q: quit
EOF
	SCREEN_FILTER=
	quit_ok
}

without_durations() {
	sed '/ | /s/^\(..\).\{10\}/\1/'
}

case_search() {
	funcptr_trace "$1"
	# a match inside a folded call unfolds it
	tui_keys j Enter / m u l Enter
	screen search-mul <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
>            [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 7 of 14                                                                 ?: help  q: quit
EOF
	tui_keys N
	screen search-next <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
>            [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 10 of 14                                                                ?: help  q: quit
EOF
	tui_keys N
	screen search-end <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
>            [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 not found below                                                                    ?: help  q: quit
EOF
	# backwards, with a regex
	tui_keys / '^(add|neg)' Enter P
	screen search-back <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
>            [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 4 of 14                                                                 ?: help  q: quit
EOF
	quit_ok
}

case_navigate() {
	funcptr_trace "$1"
	# the next call of the same caller, from a closing line; the
	# caller; the previous one
	tui_keys j j j j n n
	screen sibling <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
>-           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 9 of 14                                                                 ?: help  q: quit
EOF
	tui_keys j u p
	screen parent <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
>-           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 6 of 14                                                                 ?: help  q: quit
EOF
	tui_keys End u
	screen no-caller <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
>            [     1] | } /* main */
 no caller in the trace                                                             ?: help  q: quit
EOF
	quit_ok
}

case_report() {
	funcptr_trace "$1"
	tui_keys r
	screen report <<'EOF'
  Total time   Self time       Calls  Function
>                                  2  add
                                   2  apply
                                   2  mul
                                   1  main
                                   1  negate
                                   1  square
 report: 6 functions, by calls                                                      ?: help  q: back
EOF
	tui_keys Right
	screen report-name <<'EOF'
  Total time   Self time       Calls  Function
>                                  2  add
                                   2  apply
                                   1  main
                                   2  mul
                                   1  negate
                                   1  square
 report: 6 functions, by name                                                       ?: help  q: back
EOF
	# Enter: the function's callers and callees
	tui_keys j j j Enter
	screen callers <<'EOF'
# Function Call Graph for 'mul'
=============== BACKTRACE ===============
 backtrace #0: hit 1
   [0] main
   [1] apply
   [2] mul
 backtrace #1: hit 1
   [0] main
   [1] square
   [2] mul
========== FUNCTION CALL GRAPH ==========
# TOTAL TIME   FUNCTION
           : (2) mul
 mul                                                                                ?: help  q: back
EOF
	tui_keys q
	screen report-back <<'EOF'
  Total time   Self time       Calls  Function
                                   2  add
                                   2  apply
                                   1  main
>                                  2  mul
                                   1  negate
                                   1  square
 report: 6 functions, by name                                                       ?: help  q: back
EOF
	tui_keys q
	screen tree-back <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 1 of 14                                                                 ?: help  q: quit
EOF
	# g on a line: that function's graph
	tui_keys j j g
	screen graph <<'EOF'
# Function Call Graph for 'apply'
=============== BACKTRACE ===============
 backtrace #0: hit 2
   [0] main
   [1] apply
========== FUNCTION CALL GRAPH ==========
# TOTAL TIME   FUNCTION
           : (2) apply
           :  +-(1) add
           :  +-(1) mul
 apply                                                                              ?: help  q: back
EOF
	tui_keys q
	quit_ok
}

case_help() {
	funcptr_trace "$1"
	tui_keys '?'
	screen help <<'EOF'
ctrace tui: the calls of a trace
Everywhere
  ?            this help
  q, Esc       back to the view before; in the tree: quit
  t            the call tree
  r            the report: time and calls of each function
  Up, Down, k, j, PgUp, PgDn, Home, End    move
  mouse        the wheel moves 3 lines, a click selects a line,
               a click on the selected line is Enter
The tree
  Enter        fold or unfold the call's callees
  Left, h      fold (on a leaf: fold its caller)
  Right, l     unfold
  u            go to the caller
  n, p         go to the next, previous call of the same caller
  /            search a function by name (extended regex)
  N, P         go to the next, previous match
  g            the graph of the function: its callers and callees
The report
  Left, Right  sort by another column
  Enter, g     the function's callers and callees (its graph)
 help                                                                               ?: help  q: back
EOF
	tui_keys q
	quit_ok
}

case_resize() {
	funcptr_trace "$1"
	tui_keys End
	tmux -L "$TMUX_SOCK" resize-window -t 0 -x 40 -y 6 ||
		fail "tmux resize-window failed"
	screen small <<'EOF'
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
>            [     1] | } /* main */
 tree: line 14 of 14    ?: help  q: quit
EOF
	tui_keys Home
	screen small-top <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 tree: line 1 of 14     ?: help  q: quit
EOF
	quit_ok
}

# mouse BUTTON ROW: the terminal's report of a mouse button (0 the left
# one, 64 and 65 the wheel) pressed on row ROW (1 the first) and, for a
# button, released (xterm's X10 encoding, ncurses' kmous for tmux).
mouse() {
	m_row=$(printf %x $((32 + $2)))
	if [ "$1" = 0 ]; then
		tui_keys -H 1b 5b 4d 20 21 "$m_row" 1b 5b 4d 23 21 "$m_row"
	else
		tui_keys -H 1b 5b 4d "$(printf %x $((32 + $1)))" 21 "$m_row"
	fi
}

# The mouse: a click selects, a click on the selected line folds it, the
# wheel moves three lines.
case_mouse() {
	funcptr_trace "$1"
	mouse 0 3
	screen click <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
>-           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 3 of 14                                                                 ?: help  q: quit
EOF
	mouse 0 3
	screen click-fold <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
>+           [     1] |   apply() { ... }
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 3 of 14                                                                 ?: help  q: quit
EOF
	mouse 65 1
	screen wheel-down <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 +           [     1] |   apply() { ... }
 -           [     1] |   apply() {
             [     1] |     mul();
>            [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 8 of 14                                                                 ?: help  q: quit
EOF
	mouse 64 1
	mouse 64 1
	screen wheel-up <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 +           [     1] |   apply() { ... }
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 1 of 14                                                                 ?: help  q: quit
EOF
	quit_ok
}

# Threads one after another, each its own tree; a second opening reuses
# the index, a changed trace has it made again.
case_threads() {
	use_config "$1"
	build_c threads "$PROGS/threads.c"
	run_traced trace.bin "$BIN/threads"
	trap tui_stop EXIT
	tui_start --no-duration --thread-ids=serial trace.bin
	screen start <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   work() {
             [     1] |     leaf();
             [     1] |   } /* work */
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] | } /* main */
 -           [     2] | worker() {
 -           [     2] |   work() {
             [     2] |     leaf();
             [     2] |   } /* work */
             [     2] | } /* worker */
 -           [     3] | worker() {
 -           [     3] |   work() {
             [     3] |     leaf();
             [     3] |     leaf();
             [     3] |   } /* work */
             [     3] | } /* worker */
 -           [     4] | worker() {
 -           [     4] |   work() {
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |   } /* work */
             [     4] | } /* worker */
 tree: line 1 of 27                                                                 ?: help  q: quit
EOF
	tui_keys j Enter j Enter j j Enter
	screen threads <<'EOF'
  # DURATION     TID     FUNCTION
 +           [     1] | main() { ... }
 +           [     2] | worker() { ... }
 -           [     3] | worker() {
>+           [     3] |   work() { ... }
             [     3] | } /* worker */
 -           [     4] | worker() {
 -           [     4] |   work() {
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |   } /* work */
             [     4] | } /* worker */
 tree: line 16 of 27                                                                ?: help  q: quit
EOF
	quit_ok
	[ -f trace.bin.tui-index ] && [ -f trace.bin.tui-tree ] ||
		fail "no index next to the trace"
	touch -d '2000-01-01' trace.bin.tui-index
	tui_start --no-duration --thread-ids=serial trace.bin
	screen reopened <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   work() {
             [     1] |     leaf();
             [     1] |   } /* work */
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] | } /* main */
 -           [     2] | worker() {
 -           [     2] |   work() {
             [     2] |     leaf();
             [     2] |   } /* work */
             [     2] | } /* worker */
 -           [     3] | worker() {
 -           [     3] |   work() {
             [     3] |     leaf();
             [     3] |     leaf();
             [     3] |   } /* work */
             [     3] | } /* worker */
 -           [     4] | worker() {
 -           [     4] |   work() {
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |   } /* work */
             [     4] | } /* worker */
 tree: line 1 of 27                                                                 ?: help  q: quit
EOF
	tui_keys End
	screen reopened-end <<'EOF'
  # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   work() {
             [     1] |     leaf();
             [     1] |   } /* work */
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] | } /* main */
 -           [     2] | worker() {
 -           [     2] |   work() {
             [     2] |     leaf();
             [     2] |   } /* work */
             [     2] | } /* worker */
 -           [     3] | worker() {
 -           [     3] |   work() {
             [     3] |     leaf();
             [     3] |     leaf();
             [     3] |   } /* work */
             [     3] | } /* worker */
 -           [     4] | worker() {
 -           [     4] |   work() {
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |   } /* work */
>            [     4] | } /* worker */
 tree: line 27 of 27                                                                ?: help  q: quit
EOF
	quit_ok
	[ "$(find trace.bin.tui-index -newer trace.bin)" = "" ] ||
		fail "the index was made again, not reused"
	# a trace written again: its index is made again
	touch trace.bin
	touch -d '2000-01-01' trace.bin.tui-index
	tui_start --no-duration --thread-ids=serial trace.bin
	screen remade <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   work() {
             [     1] |     leaf();
             [     1] |   } /* work */
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] | } /* main */
 -           [     2] | worker() {
 -           [     2] |   work() {
             [     2] |     leaf();
             [     2] |   } /* work */
             [     2] | } /* worker */
 -           [     3] | worker() {
 -           [     3] |   work() {
             [     3] |     leaf();
             [     3] |     leaf();
             [     3] |   } /* work */
             [     3] | } /* worker */
 -           [     4] | worker() {
 -           [     4] |   work() {
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |     leaf();
             [     4] |   } /* work */
             [     4] | } /* worker */
 tree: line 1 of 27                                                                 ?: help  q: quit
EOF
	quit_ok
	[ "$(find trace.bin.tui-index -newer trace.bin)" = trace.bin.tui-index ] ||
		fail "the index of a changed trace was reused"
	# other options: another tree
	tui_start --no-duration --thread-ids=serial --tid=1 trace.bin
	screen filtered <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   work() {
             [     1] |     leaf();
             [     1] |   } /* work */
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] |   run_worker();
             [     1] | } /* main */
 tree: line 1 of 9                                                                  ?: help  q: quit
EOF
	quit_ok
	[ "$(find trace.bin.tui-index -newer trace.bin)" = trace.bin.tui-index ] ||
		fail "the index of other options was not made"
}

# Arguments and return values, when captured, as the tree shows them
# (the tree format's own text is the oracle: the browser shows its lines).
case_values() {
	use_config "$1"
	build_c funcptr "$PROGS/funcptr.c"
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin "$BIN/funcptr"
	symbolize_stable tree trace.bin
	grep -q '| *square(x=5) {$' tree || { cat tree; fail "no square(x=5)"; }
	trap tui_stop EXIT
	tui_start --no-duration --thread-ids=serial trace.bin
	{
		awk 'NR == 1 { print "> " $0; next }
		     /\{$/ { print " -" $0; next } { print "  " $0 }' tree
		printf '%-84s%s\n' " tree: line 1 of 14" "?: help  q: quit"
	} >values.want
	screen values <values.want
	tui_keys j j j j j j j j Left
	{
		awk 'NR == 1 { print "  " $0; next }
		     NR == 9 { print ">+" $0 " ... }"; next }
		     NR == 10 || NR == 11 { next }
		     /\{$/ { print " -" $0; next } { print "  " $0 }' tree
		printf '%-84s%s\n' " tree: line 9 of 14" "?: help  q: quit"
	} >values-folded.want
	screen values-folded <values-folded.want
	quit_ok
}

# tree_rows TREE FROM CUR [FOLD FOLDEND]: the rows the tree view shows of
# TREE's lines from FROM on (29 at most), the cursor on line CUR, line
# FOLD folded (its callees to FOLDEND hidden), then the status line.
tree_rows() {
	awk -v from="$2" -v cur="$3" -v fold="${4:-0}" -v fend="${5:-0}" '
		NR < from || rows == 29 { next }
		NR > fold && NR <= fend { next }
		{
			m = " "
			if (NR == fold) m = "+"
			else if ($0 ~ /\{$/) m = "-"
			s = (NR == cur ? ">" : " ") m $0 (NR == fold ? " ... }" : "")
			print substr(s, 1, 100); rows++
		}' "$1"
	printf '%-84s%s\n' " tree: line $3 of $(wc -l <"$1")" "?: help  q: quit"
}

# A tree of several of the sidecar's blocks (1,024 lines each): fib(16)
# with its arguments, 4,794 lines, as the tree format's own text shows
# them.  A search that crosses blocks, the caller of a line blocks above
# it, folds whose end came blocks after their line, the last screen,
# once while the index is made and again from the index reused.
# The sidecar is a quarter of the text at most (it was the text and 32
# bytes a line).
case_bigtree() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin "$BIN/fib" 16
	symbolize_stable tree trace.bin
	n=$(wc -l <tree)
	[ "$n" -gt 3072 ] || { cat tree; fail "only $n lines"; }
	f16=$(grep -n '| *fib(n=16) {$' tree | cut -d: -f1)
	e16=$(grep -n '^ *\[ *1\] |   } = 987; /\* fib \*/$' tree | cut -d: -f1)
	f14=$(grep -n '| *fib(n=14) {$' tree | sed -n '2s/:.*//p')
	[ -n "$f16" ] && [ -n "$e16" ] && [ "${f14:-0}" -gt 2048 ] ||
		{ cat tree; fail "not fib(16)'s tree"; }
	trap tui_stop EXIT
	for opening in made reused; do
		tui_start --no-duration --thread-ids=serial trace.bin
		tree_rows tree 1 1 >want
		screen "first-$opening" <want
		tui_keys / 'n=14' Enter N
		tree_rows tree $((f14 - 28)) "$f14" >want
		screen "search-$opening" <want
		tui_keys u
		tree_rows tree "$f16" "$f16" >want
		screen "caller-$opening" <want
		tui_keys Enter
		tree_rows tree "$f16" "$f16" "$f16" "$e16" >want
		screen "fold-$opening" <want
		tui_keys End
		tree_rows tree "$f16" "$n" "$f16" "$e16" >want
		screen "end-folded-$opening" <want
		# on main's closing line: main folded, its end three blocks on
		tui_keys Enter
		tree_rows tree 2 2 2 "$n" >want
		screen "main-folded-$opening" <want
		tui_keys Enter / 'n=16' Enter Enter End
		tree_rows tree $((n - 28)) "$n" >want
		screen "end-$opening" <want
		quit_ok
		[ "$opening" = reused ] || touch -d '2000-01-01' trace.bin.tui-index
	done
	[ "$(find trace.bin.tui-index -newer trace.bin)" = "" ] ||
		fail "the index was made again, not reused"
	side=$(($(wc -c <trace.bin.tui-tree) + $(wc -c <trace.bin.tui-index)))
	[ $((side * 4)) -le "$(wc -c <tree)" ] ||
		fail "the sidecar is $side bytes for $(wc -c <tree) bytes of text"
}

# Lines as the sidecar keeps them, without their thread column and
# indentation, and made again: with durations (a duration, or blanks,
# before the thread column) and beyond --max-depth ("[depth N]" after
# the indentation, kept whole), on two blocks; the screens are the tree
# format's own text of the same trace and options.
case_maxdepth() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 14
	symbolize tree --thread-ids=serial --per-thread --max-depth=3 trace.bin
	n=$(wc -l <tree)
	[ "$n" -gt 1024 ] && grep -q '| *\[depth 4\] fib() {$' tree &&
		grep -q '^ *[0-9]*\.[0-9]* us \[' tree ||
		{ cat tree; fail "not the tree expected"; }
	trap tui_stop EXIT
	for opening in made reused; do
		tui_start --thread-ids=serial --max-depth=3 trace.bin
		tree_rows tree 1 1 >want
		screen "first-$opening" <want
		tui_keys End
		tree_rows tree $((n - 28)) "$n" >want
		screen "end-$opening" <want
		quit_ok
	done
}

# texts_tree: a tree's text whose lines repeat and differ in the ways a
# block's table of distinct texts must tell apart: one text at several
# depths, as a leaf and as a call, in two threads; texts of 1 to 40
# bytes differing in their first or last byte only; pairs of texts of
# the same hash (index.c's text_hash as it is: another hash leaves them
# two texts among others); lines longer than the 4 KiB kept, the same or
# not in their first 4 KiB; "[depth N]" lines; more distinct texts than
# a block's lines, three times over (3,765 lines).
texts_tree() {
	awk 'function pad(n,   s) { s = ""; while (length(s) < n) s = s " "; return s }
	function rep(c, n,   s) { s = ""; while (length(s) < n) s = s c; return s }
	function line(d, t, tid) {
		k++
		printf "%s [%6d] | %s%s\n", k % 5 ? sprintf("%3d.%03d us",
			k % 7, k * 37 % 1000) : pad(10), tid, pad(2 * d), t
	}
	BEGIN {
		print "# DURATION     TID     FUNCTION"
		line(0, "main() {", 1)
		for (r = 0; r < 3; r++) {
			for (d = 1; d <= 4; d++)
				line(d, "x() {", 1)
			for (d = 5; d >= 1; d--) {
				line(d, "x();", 1)
				if (d > 1)
					line(d - 1, "} /* x */", 1)
			}
			for (n = 1; n <= 40; n++) {
				line(1, rep("a", n - 1) "b", 1)
				line(1, "b" rep("a", n - 1), 1)
				line(1, rep("a", n), 1)
			}
			line(1, "f00025745();", 1)
			line(1, "f00212264();", 1)
			line(1, "k10087697", 1)
			line(1, "k10133590", 1)
			line(1, "g20379() {", 1)
			line(2, "g21359() {", 1)
			line(3, "f00212264();", 1)
			line(2, "} /* g21359 */", 1)
			line(1, "} /* g20379 */", 1)
			line(1, rep("L", 5000) "1", 1)
			line(1, rep("L", 5000) "2", 1)
			line(1, rep("L", 3990) "3" rep("L", 1000), 1)
			line(1, rep("L", 3990) "4" rep("L", 1000), 1)
			line(1, "x();", 2)
			line(1, "x() {", 2)
			line(2, "x();", 2)
			line(1, "} /* x */", 2)
			print "# lost events"
			line(1, "[depth 9] x();", 1)
			line(1, "[depth 9] x() {", 1)
			line(1, "[depth 10] x();", 1)
			for (u = 0; u < 1100; u++)
				line(1, "u" u "();", 1)
		}
		line(0, "} /* main */", 1)
	}'
}

# tree_places TEXT: each line's depth, flags, parent and end (-1: none)
# as the index gives them (index.c's add_line), from a tree's text.
tree_places() {
	awk 'function popto(d, i) {
		while (sp > 0 && sd[sp] > d) { en[sl[sp]] = i - 1; sp-- }
	}
	{
		i = NR - 1; s = $0; bar = 0
		if (length(s) >= 4 && substr(s, 1, 1) != "#") {
			lim = length(s) - 3 < 64 ? length(s) - 3 : 64
			for (k = 1; k <= lim; k++)
				if (substr(s, k, 4) == "] | ") { bar = k; break }
		}
		if (!bar) {
			popto(-1, i); tid = ""
			dp[i] = 0; fl[i] = 1; pa[i] = -1; en[i] = i; next
		}
		col = 1
		for (k = bar - 1; k >= 1; k--)
			if (substr(s, k, 1) == "[") { col = k; break }
		t = substr(s, col, bar - col)
		if (t != tid) { popto(-1, i); tid = t }
		r = substr(s, bar + 4)
		n = match(r, /[^ ]/) ? RSTART - 1 : length(r)
		d = int(n / 2); r = substr(r, n + 1)
		if (length(r) > 7 && substr(r, 1, 7) == "[depth ")
			d = substr(r, 8) + 0
		dp[i] = d; fl[i] = 0
		popto(d, i)
		if (substr(r, 1, 1) == "}" && sp > 0 && sd[sp] == d) {
			en[sl[sp]] = i; fl[i] = 2; en[i] = sl[sp]; sp--
			pa[i] = sp ? sl[sp] : -1; next
		}
		if (sp > 0 && sd[sp] == d) { en[sl[sp]] = i - 1; sp-- }
		pa[i] = sp ? sl[sp] : -1
		sp++; sl[sp] = i; sd[sp] = d
	}
	END {
		popto(-1, NR)
		for (i = 0; i < NR; i++) print dp[i], fl[i], pa[i], en[i]
	}' "$1"
}

# The index made from texts_tree's text alone (bench/tuix, without the
# replay nor the screen: the text is what is checked): every line read
# back is the text's cut to 4,095 bytes, in its place in the tree
# (tree_places), and the same when read while the index was made.  Then
# a text repeated in a block is kept once: 10,000 calls of the
# benchmark's outer { mid { leaf leaf } leaf }, without durations, take
# at most 1.4 bytes a line (1.65 when every line's text was kept; a
# duration's code is 1 byte a line of it).
case_texts() {
	tuix=$top_builddir/bench/tuix
	texts_tree >text
	: >trace.bin # the index's key reads it
	"$tuix" text trace.bin --dump >dump 2>err || { cat err; fail "bench/tuix failed"; }
	cut -c1-4095 text >want
	cut -d' ' -f5- dump >got
	cmp -s want got || { diff want got | head -20; fail "the lines read back differ"; }
	tree_places text >want
	cut -d' ' -f1-4 dump >got
	cmp -s want got || { diff want got | head -20; fail "the lines' places differ"; }
	"$tuix" text trace.bin --check 2>err ||
		{ cat err; fail "lines read while indexing differ"; }
	awk 'BEGIN {
		print "# DURATION     TID     FUNCTION"
		print "           [     1] | main() {"
		for (i = 0; i < 10000; i++) {
			print "           [     1] |   outer() {"
			print "           [     1] |     mid() {"
			print "           [     1] |       leaf();"
			print "           [     1] |       leaf();"
			print "           [     1] |     } /* mid */"
			print "           [     1] |     leaf();"
			print "           [     1] |   } /* outer */"
		}
		print "           [     1] | } /* main */"
	}' >text
	"$tuix" text trace.bin 2>err || { cat err; fail "bench/tuix failed"; }
	side=$(($(wc -c <trace.bin.tui-tree) + $(wc -c <trace.bin.tui-index)))
	[ $((side * 10)) -le $((70003 * 14)) ] ||
		fail "the sidecar is $side bytes for 70,003 lines"
}

# A link planted where the sidecar goes is not followed: the index goes
# to the cache directory, the link's target is untouched.
case_symlink() {
	use_config "$1"
	build_c funcptr "$PROGS/funcptr.c"
	run_traced trace.bin "$BIN/funcptr"
	echo precious >victim
	ln -s victim trace.bin.tui-tree
	mkdir cache
	TUI_ENV="export XDG_CACHE_HOME='$PWD/cache'"
	trap tui_stop EXIT
	tui_start --no-duration --thread-ids=serial trace.bin
	screen start <<'EOF'
> # DURATION     TID     FUNCTION
 -           [     1] | main() {
 -           [     1] |   apply() {
             [     1] |     add();
             [     1] |   } /* apply */
 -           [     1] |   apply() {
             [     1] |     mul();
             [     1] |   } /* apply */
 -           [     1] |   square() {
             [     1] |     mul();
             [     1] |   } /* square */
             [     1] |   negate();
             [     1] |   add();
             [     1] | } /* main */
 tree: line 1 of 14                                                                 ?: help  q: quit
EOF
	quit_ok
	[ "$(cat victim)" = precious ] || fail "the link's target was written"
	ls cache/ctrace/*.tui-tree >/dev/null 2>&1 ||
		fail "no index in the cache directory"
}

# The processes of a program that forks, a directory of traces: each
# process after its "#" line, as the tree shows them.
case_processes() {
	use_config "$1"
	build_c fork "$PROGS/fork.c"
	mkdir traces
	(cd traces && CTRACE_OUTPUT=trace.bin "$BIN/fork" >../fork.out 2>&1) ||
		{ cat fork.out; fail "fork failed"; }
	# the pids as the screen shows them (symbolize_stable hides them)
	# shellcheck disable=SC2086
	symbolize tree $STABLE_OPTS traces
	[ "$(grep -c '^# .*: pid ' tree)" = 2 ] || { cat tree; fail "not 2 processes"; }
	n=$(wc -l <tree)
	trap tui_stop EXIT
	tui_start --no-duration --thread-ids=serial traces
	{
		awk 'NR == 1 { print "> " $0; next }
		     /\{$/ { print " -" $0; next } { print "  " $0 }' tree
		printf '%-84s%s\n' " tree: line 1 of $n" "?: help  q: quit"
	} >start.want
	screen start <start.want
	# fold the first process's main: the second process stays
	tui_keys j j Enter
	{
		awk 'NR <= 2 { print "  " $0; next }
		     NR == 3 { print ">+" $0 " ... }"; f = 1; next }
		     f && /^#/ { f = 0 }
		     f { next }
		     /\{$/ { print " -" $0; next } { print "  " $0 }' tree
		printf '%-84s%s\n' " tree: line 3 of $n" "?: help  q: quit"
	} >folded.want
	screen folded <folded.want
	quit_ok
	[ -f traces/.ctrace.tui-index ] || fail "no index in the directory"
}

# Not a terminal: a clear error, status 2.
case_noterm() {
	use_config "$1"
	build_c funcptr "$PROGS/funcptr.c"
	run_traced trace.bin "$BIN/funcptr"
	"$CTRACE" tui trace.bin </dev/null >out 2>err && fail "exit 0"
	[ $? -eq 2 ] || fail "not exit status 2"
	grep -q -- "--tui needs a terminal" err || { cat err; fail "no message"; }
}

for cfg in $(configs); do
	run_case "fold-$cfg" case_fold "$cfg"
	run_case "durations-$cfg" case_durations "$cfg"
	run_case "search-$cfg" case_search "$cfg"
	run_case "navigate-$cfg" case_navigate "$cfg"
	run_case "report-$cfg" case_report "$cfg"
	run_case "help-$cfg" case_help "$cfg"
	run_case "resize-$cfg" case_resize "$cfg"
	run_case "mouse-$cfg" case_mouse "$cfg"
	run_case "threads-$cfg" case_threads "$cfg"
	run_case "values-$cfg" case_values "$cfg"
	run_case "processes-$cfg" case_processes "$cfg"
	run_case "bigtree-$cfg" case_bigtree "$cfg"
	run_case "maxdepth-$cfg" case_maxdepth "$cfg"
done
run_case noterm case_noterm cc-O0-pie
run_case symlink case_symlink cc-O0-pie
run_case texts case_texts

test_finish
