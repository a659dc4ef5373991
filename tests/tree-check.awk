# tree-check.awk -- is a ctrace-symbolize tree well-formed?
#
#	awk [-v durations=1] -f tree-check.awk TREE
#
# Reads the tree output (any thread-id mode, per-thread or interleaved,
# with or without --srcline) and checks, for each thread separately, that
# every line sits at the depth its thread is at: an entry `f() {' opens a
# level, a leaf `f();' stays, an exit `} /* f */' (`} = VALUE; /* f */'
# with a return value) or `} /* f (unfinished) */' closes the level `f'
# opened (so does `} /* f (no exit recorded) */'), a line
# `/* ctrace: leaves the stack of f, N calls suspended */' closes N levels
# (f the innermost), `/* ctrace: back to the stack of f, N calls resumed */'
# opens N (f the innermost), a
# `} /* f (entered before the trace) */' may only stand at depth 0, and no
# level is left open at the end.  A thread whose first line is indented is
# a child process's, shown under the call that made it (or, read without
# its parent, a fork()ed child's inside the calls it inherited open, which
# it closes): those levels count as open, their names unknown, and a
# thread that does not close them ends at that depth, never above it.  With durations=1 it also checks the
# duration column: blank on entries and on calls that did not return, a
# well-formed number with a unit elsewhere.
#
# Prints the counts of calls and closing kinds and exits 0 when the
# tree is well-formed, else prints what is wrong and exits 1.

function complain(msg) {
	printf "%s:%d: %s\n  %s\n", FILENAME, FNR, msg, $0
	bad = 1
}

# The name without the "()" the tree adds (names demangled with their
# parameters may come without it).
function bare(name) {
	while (name ~ /\(\)$/)
		name = substr(name, 1, length(name) - 2)
	return name
}

function check_duration(kind, d) {
	if (!durations)
		return
	if (kind == "blank") {
		if (d !~ /^ *$/)
			complain("duration where none belongs")
	} else if (d !~ /^ *[0-9]+\.[0-9][0-9][0-9] (us|ms|  s)$/) {
		complain("malformed duration")
	}
}

BEGIN {
	bad = 0
	calls = 0
	unfinished = 0
	noexit = 0
	before = 0
	traces = 0
	lost = 0
	nthreads = 0
}

FNR == 1 {
	if ($0 != "# DURATION     TID     FUNCTION")
		complain("bad header line")
	next
}

# With several traces, a line `# FILE: pid N (EXE)' starts each: the
# previous one must be complete, and thread ids start over.
/^# / {
	for (t in depth)
		if (depth[t] != base[t])
			complain("thread " t " has calls open at the next trace")
	for (t in depth) {
		delete depth[t]
		delete base[t]
	}
	traces++
	next
}

{
	# "%10s [%6s] | ": the thread id may be wider than 6 (a 7-digit
	# kernel tid, or PID/SERIAL when several traces are shown).
	close_col = index(substr($0, 13), "] | ")
	if (length($0) < 23 || substr($0, 11, 2) != " [" || close_col < 6) {
		complain("bad columns")
		next
	}
	dur = substr($0, 1, 10)
	tid = substr($0, 13, close_col - 1)
	sub(/^ +/, "", tid)
	if (tid !~ /^[0-9]+(\/[0-9]+)?$/)
		complain("bad thread id")
	fresh = !(tid in depth)
	if (fresh) {
		depth[tid] = 0
		base[tid] = 0
		nthreads++
	}
	text = substr($0, 12 + close_col + 4)
	indent = match(text, /[^ ]/) - 1
	if (indent < 0 || indent % 2) {
		complain("bad indentation")
		next
	}
	level = indent / 2
	text = substr(text, indent + 1)
	if (fresh && level > 0) {
		depth[tid] = level + (text ~ /^} \/\* /)
		if (text !~ /^} \/\* /)
			base[tid] = level
		for (i = 0; i < depth[tid]; i++)
			open[tid, i] = ""
		inherited++
	}

	if (text ~ /^\/\* ctrace: [0-9]+ events lost \(.*\) \*\/$/) {
		lost++
		if (level != depth[tid])
			complain("lost-events line at depth " level \
			    ", thread is at " depth[tid])
		next
	}
	# A switch to another stack (coroutines): the calls above the one
	# left there, its N innermost, are suspended, shown by one line at
	# the innermost's depth; coming back, N calls resumed on that stack,
	# the line at the depth of their innermost, F.
	if (text ~ /^\/\* ctrace: (leaves|back to) the stack of .*, [0-9]+ calls? (suspended|resumed) \*\/$/) {
		n = text
		sub(/ calls? (suspended|resumed) \*\/$/, "", n)
		sub(/.*, /, "", n)
		n += 0
		name = text
		sub(/^\/\* ctrace: (leaves|back to) the stack of /, "", name)
		sub(/, [0-9]+ calls? (suspended|resumed) \*\/$/, "", name)
		switches++
		if (text ~ /suspended \*\/$/) {
			if (n < 1 || n > depth[tid]) {
				complain(n " calls suspended, " depth[tid] " open")
				next
			}
			if (level != depth[tid] - 1)
				complain("suspension at depth " level \
				    ", expected " depth[tid] - 1)
			if (open[tid, depth[tid] - 1] != "" &&
			    open[tid, depth[tid] - 1] != bare(name))
				complain("suspends " name " but " \
				    open[tid, depth[tid] - 1] " is innermost")
			depth[tid] -= n
		} else {
			if (n < 1)
				complain("no call resumed")
			if (level != depth[tid] + n - 1)
				complain("resumption at depth " level \
				    ", expected " depth[tid] + n - 1)
			for (i = 0; i < n - 1; i++)
				open[tid, depth[tid] + i] = ""
			open[tid, depth[tid] + n - 1] = bare(name)
			depth[tid] += n
		}
		next
	}
	# A marker, tracepoint hit or recording switch: a whole-line comment
	# at the thread's depth.
	if (text ~ /^\/\* .* \*\/$/) {
		notes++
		if (level != depth[tid])
			complain("note at depth " level ", thread is at " depth[tid])
		next
	}
	# An exit with its return value: `} = VALUE; /* f */'.
	if (text ~ /^} = .*; \/\* [^*]* \*\/$/)
		text = "} " substr(text, match(text, /\/\* [^*]* \*\/$/))
	if (text ~ /^} \/\* .* \*\/$/) {
		name = substr(text, 6, length(text) - 8)
		kind = "exit"
		if (name ~ / \(unfinished\)$/) {
			name = substr(name, 1, length(name) - 13)
			kind = "unfinished"
			unfinished++
		} else if (name ~ / \(no exit recorded\)$/) {
			name = substr(name, 1, length(name) - 19)
			kind = "no-exit"
			noexit++
		} else if (name ~ / \(entered before the trace\)$/) {
			# The return of a call the trace never saw enter (a
			# fork()ed child leaving its parent's frames).
			before++
			if (depth[tid] != 0 || level != 0)
				complain("return from before the trace inside a call")
			check_duration("blank", dur)
			next
		}
		if (depth[tid] == base[tid]) {
			complain("exit with no open call")
			next
		}
		d = --depth[tid]
		if (level != d)
			complain("exit at depth " level ", expected " d)
		if (open[tid, d] != "" && open[tid, d] != bare(name))
			complain("exit of " name " closes " open[tid, d])
		check_duration(kind == "exit" ? "number" : "blank", dur)
		next
	}
	# An entry or leaf, maybe followed by --srcline's comment.
	sub(/ \/\* [^ ]*:[0-9]+ \*\/$/, "", text)
	sub(/ \/\* [^*]* \*\/$/, "", text)
	if (text ~ / \{$/) {
		name = bare(substr(text, 1, length(text) - 2))
		if (level != depth[tid])
			complain("entry at depth " level ", expected " depth[tid])
		open[tid, depth[tid]] = name
		depth[tid]++
		calls++
		check_duration("blank", dur)
	} else if (text ~ /;$/) {
		if (level != depth[tid])
			complain("leaf at depth " level ", expected " depth[tid])
		calls++
		check_duration("number", dur)
	} else {
		complain("unrecognized line")
	}
	if (text ~ /^(\(\))?( \{|;)$/)
		complain("empty function name")
}

END {
	for (t in depth)
		if (depth[t] != base[t]) {
			printf "%s: thread %s ends with %d calls open\n",
			    FILENAME, t, depth[t] - base[t]
			bad = 1
		}
	printf "calls %d unfinished %d no-exit %d before-trace %d " \
	    "lost-lines %d threads %d\n",
	    calls, unfinished, noexit, before, lost, nthreads
	exit bad
}
