#!/bin/sh
# security.sh -- the recorder never widens what its user can do: a
# setuid-root program run by an unprivileged user records nothing and
# reads no CTRACE_* variable; a trace planted by another user is never
# reused; directories another user can change are refused; traces are
# created 0600 (CTRACE_MODE widens them to at most 0644); an old trace is
# replaced, never truncated under whoever still reads it.
#
# The cases that need a second user create one (useradd) and remove it;
# they skip with a message where the test is not root.

. "$(dirname "$0")/lib.sh"
test_init security
RPROGS=$top_srcdir/tests/reliability/progs

leaf_calls() {
	"$CTRACE_SYMBOLIZE" -f report "$1" 2>/dev/null |
		awk '$NF == "leaf" { print $(NF - 7) }'
}

# ---------------------------------------------------------------------------
# A second user
# ---------------------------------------------------------------------------

# with_user: create an unprivileged user $user ($uid, $gid) and a scratch
# directory $top (0755, the user can reach it) outside the build tree,
# both removed when the case ends.  Skips unless root.
with_user() {
	[ "$(id -u)" = 0 ] ||
		skip "not root: cannot create a user or a setuid-root program"
	command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
		skip "useradd or setpriv not found"
	user=ctrace-t$$
	useradd -M -N -d /nonexistent -s /bin/sh "$user" >useradd.err 2>&1 ||
		skip "useradd failed: $(cat useradd.err)"
	top=$(mktemp -d "${TMPDIR:-/tmp}/ctrace-security.XXXXXX") ||
		{ userdel "$user"; fail "mktemp failed"; }
	trap 'rm -rf "$top"; userdel "$user" 2>/dev/null' EXIT
	chmod 755 "$top"
	uid=$(id -u "$user")
	gid=$(id -g "$user")
}

# as_user COMMAND...: run COMMAND as $user, with the environment kept.
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"
}

# ---------------------------------------------------------------------------
# Privileged programs
# ---------------------------------------------------------------------------

# A setuid-root program run by the user with every variable that once
# wrote a root-owned file where the user chose (umask 000 made it
# world-writable), or put the program's strings in a file the user reads.
case_setuid() {
	use_config "$1"
	with_user
	build_c limits "$RPROGS/limits.c"
	cp "$BIN/limits" "$top/prog"
	chown root:root "$top/prog"
	chmod 4755 "$top/prog"
	mkdir "$top/etc" "$top/home"
	chown "$uid" "$top/home"
	(cd "$top/home" && umask 000 &&
		as_user env CTRACE_OUTPUT="$top/etc/x.sh" CTRACE_ARGS=all \
			CTRACE_RETVAL=all CTRACE_PLAN="$top/etc/none" \
			CTRACE_MODE=0644 "$top/prog" uid) >out 2>err
	status=$?
	cat out err
	case $(cat out) in
	"uid $uid 0") ;;
	"uid $uid $uid") skip "the setuid bit has no effect here (nosuid mount?)" ;;
	*) fail "unexpected output" ;;
	esac
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ ! -s err ] || fail "the recorder wrote to a setuid program's stderr"
	ls -la "$top/etc" "$top/home"
	[ ! -e "$top/etc/x.sh" ] || fail "the setuid program wrote CTRACE_OUTPUT"
	[ -z "$(find "$top/etc" "$top/home" -mindepth 1)" ] ||
		fail "the setuid program wrote a file"
	# The same program run by root itself (not in secure mode) records:
	# what stopped it above was the secure mode, nothing else.
	CTRACE_OUTPUT="$top/etc/x.sh" "$top/prog" uid >out 2>err ||
		fail "the program failed as root"
	[ -f "$top/etc/x.sh" ] || fail "no trace when run by root"
	[ "$(leaf_calls "$top/etc/x.sh")" = 1 ] || fail "expected 1 leaf call"
}

# ---------------------------------------------------------------------------
# Files and directories planted by another user
# ---------------------------------------------------------------------------

# A valid trace planted by the user in a sticky directory is not reused
# by root's program (which would write root's trace into the user's file,
# and die of SIGBUS when the user empties it): one line, the program runs
# on, the user's file is untouched.  Root's own trace there is 0600: the
# user cannot empty it under the mapping.
case_planted() {
	use_config "$1"
	with_user
	build_c limits "$RPROGS/limits.c"
	chmod 755 "$BIN" "$BIN/limits"
	cp "$BIN/limits" "$top/prog"
	mkdir -m 1777 "$top/sticky"
	as_user env CTRACE_OUTPUT="$top/sticky/t.bin" "$top/prog" calls 10 \
		>out 2>&1 || { cat out; fail "the user's run failed"; }
	cp "$top/sticky/t.bin" planted.copy
	CTRACE_OUTPUT="$top/sticky/t.bin" "$top/prog" calls 30000000 \
		>out 2>err &
	pid=$!
	# once root's program has refused the planted file (or ended)
	while kill -0 $pid 2>/dev/null &&
		! grep -q 'belongs to another user' err; do
		sleep 0.01
	done
	as_user truncate -s 0 "$top/sticky/t.bin"
	wait $pid
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "root's program exited with $status"
	grep -q "^ctrace: $top/sticky/t.bin: belongs to another user; not reusing it; tracing disabled\$" err ||
		fail "no message about the planted trace"
	[ "$(stat -c %u "$top/sticky/t.bin")" = "$uid" ] ||
		fail "the planted file changed owner"

	# Root's own trace in the sticky directory.
	CTRACE_OUTPUT="$top/sticky/r.bin" "$top/prog" calls 30000000 \
		>out 2>err &
	pid=$!
	# once root's trace is there (or the program ended)
	while kill -0 $pid 2>/dev/null && [ ! -s "$top/sticky/r.bin" ]; do
		sleep 0.01
	done
	[ -e "$top/sticky/r.bin" ] || fail "root's program wrote no trace"
	if as_user truncate -s 0 "$top/sticky/r.bin" 2>trunc.err; then
		fail "the user could truncate root's trace"
	fi
	wait $pid
	status=$?
	cat out err trunc.err
	[ $status -eq 0 ] || fail "root's program exited with $status"
	[ "$(stat -c '%a %u' "$top/sticky/r.bin")" = "600 0" ] ||
		fail "root's trace is $(stat -c '%a %u' "$top/sticky/r.bin")"
}

# A capture plan beside root's program in a sticky directory: another
# user's (which, mapped, killed root's program with SIGBUS when the user
# truncated it) is refused with one line; so are root's own when others
# can write it, or when it is larger than the limit (a 20 GB sparse
# file); a plan of root's, 0644, is used.
case_planted_plan() {
	use_config "$1"
	with_user
	build_c limits "$RPROGS/limits.c"
	mkdir -m 1777 "$top/sticky"
	cp "$BIN/limits" "$top/sticky/prog"
	chmod 755 "$top/sticky/prog"
	"$CTRACE_SYMBOLIZE" --make-plan -o plan "$top/sticky/prog" ||
		fail "--make-plan failed"
	plan=$top/sticky/prog.ctrace-plan
	as_user cp plan "$plan"
	for how in user writable huge; do
		case $how in
		writable) rm -f "$plan"; cp plan "$plan"; chmod 666 "$plan"
			msg="another user can change it" ;;
		huge) rm -f "$plan"; truncate -s 20G "$plan"
			msg="larger than 256 MiB" ;;
		*) msg="belongs to another user" ;;
		esac
		CTRACE_ARGS=all CTRACE_OUTPUT=t.bin "$top/sticky/prog" calls 10 \
			>out 2>err
		status=$?
		cat out err
		[ $status -eq 0 ] || fail "$how: root's program exited with $status"
		[ "$(cat out)" = "done 10" ] || fail "$how: wrong output"
		grep -q "^ctrace: $plan: $msg; capturing without a plan\$" err ||
			fail "$how: no message about the plan"
	done
	rm -f "$plan"
	cp plan "$plan"
	chmod 644 "$plan"
	CTRACE_ARGS=all run_traced t.bin "$top/sticky/prog" calls 10
	[ "$(leaf_calls t.bin)" = 10 ] || fail "expected 10 leaf calls"
}

# Directories on the way that the user controls: a symbolic link the user
# planted in a sticky directory, a directory of the user's there, a
# world-writable directory.  Root's program writes nothing below them.
# Root's own link is followed.
case_dirs() {
	use_config "$1"
	with_user
	build_c limits "$RPROGS/limits.c"
	mkdir -m 1777 "$top/sticky"
	mkdir -m 755 "$top/etc"
	as_user ln -s "$top/etc" "$top/sticky/linkdir"
	as_user mkdir -m 755 "$top/sticky/udir"
	mkdir -m 777 "$top/open"
	for out in sticky/linkdir/t.bin sticky/udir/t.bin open/t.bin; do
		dir=$top/${out%/t.bin}
		CTRACE_OUTPUT="$top/$out" "$BIN/limits" calls 10 >out 2>err
		status=$?
		cat out err
		[ $status -eq 0 ] || fail "$out: the program exited with $status"
		grep -q "^ctrace: $dir: a directory another user can change (or a symbolic link in it); not writing below it; tracing disabled\$" err ||
			fail "$out: no message about $dir"
		[ ! -e "$top/$out" ] || fail "$out was written"
	done
	[ -z "$(ls -A "$top/etc")" ] || fail "a trace went through the link"
	ln -s "$top/etc" "$top/sticky/rootlink"
	run_traced "$top/sticky/rootlink/t.bin" "$BIN/limits" calls 10
	[ -f "$top/etc/t.bin" ] || fail "root's own link was not followed"
}

# Without a second user: a world-writable directory is refused, a link of
# one's own in one's own directory is followed.
case_dirs_own() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	mkdir -m 777 open
	chmod 755 .
	CTRACE_OUTPUT=open/t.bin "$BIN/limits" calls 10 >out 2>err
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	grep -q "^ctrace: $PWD/open: a directory another user can change (or a symbolic link in it); not writing below it; tracing disabled\$" err ||
		fail "no message about open/"
	[ ! -e open/t.bin ] || fail "open/t.bin was written"
	mkdir -m 755 sub
	ln -s sub link
	run_traced link/t.bin "$BIN/limits" calls 10
	[ -f sub/t.bin ] || fail "a link of one's own was not followed"
}

# The symbolizer's -o in a sticky directory: a symbolic link the user
# planted there (to a file of root's) is not followed, a FIFO the user
# made there does not block the open; root's own link there is followed,
# but not in a directory anybody can change (mode 777).
case_output_planted() {
	use_config "$1"
	with_user
	build_c limits "$RPROGS/limits.c"
	run_traced t.bin "$BIN/limits" calls 10
	mkdir -m 1777 "$top/sticky"
	mkdir -m 777 "$top/open"
	echo secret >"$top/victim"
	as_user ln -s "$top/victim" "$top/sticky/out.json"
	as_user mkfifo "$top/sticky/fifo"
	for out in out.json fifo; do
		timeout 60 "$CTRACE_SYMBOLIZE" -f json -o "$top/sticky/$out" \
			t.bin >out 2>err
		status=$?
		cat err
		[ $status -eq 1 ] || fail "-o $out: exit status $status, not 1"
		what="a symbolic link"
		[ $out = fifo ] && what="a file"
		grep -qx "ctrace-symbolize: $top/sticky/$out: $what of another user in a directory others can write to; not written" err ||
			fail "no message about the planted $out"
	done
	[ "$(cat "$top/victim")" = secret ] ||
		fail "the planted link was followed"
	ln -s "$top/victim" "$top/sticky/root.txt"
	symbolize out -f report -o "$top/sticky/root.txt" t.bin
	grep -q ' leaf$' "$top/victim" || fail "root's own link was not followed"
	echo secret >"$top/victim"
	ln -s "$top/victim" "$top/open/root.txt"
	"$CTRACE_SYMBOLIZE" -f report -o "$top/open/root.txt" t.bin 2>err &&
		fail "a link in a world-writable directory was followed"
	grep -qx "ctrace-symbolize: $top/open/root.txt: a symbolic link in a directory others can change; not followed" err ||
		fail "no message about the link in $top/open"
	[ "$(cat "$top/victim")" = secret ] ||
		fail "the link in $top/open was followed"
}

# ---------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------

case_modes() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	(umask 000 && run_traced t1.bin "$BIN/limits" calls 10)
	[ "$(stat -c %a t1.bin)" = 600 ] ||
		fail "t1.bin has mode $(stat -c %a t1.bin) with umask 000"
	(umask 022 && export CTRACE_MODE=0640 && run_traced t2.bin "$BIN/limits" calls 10)
	[ "$(stat -c %a t2.bin)" = 640 ] ||
		fail "t2.bin has mode $(stat -c %a t2.bin) with CTRACE_MODE=0640"
	(umask 027 && export CTRACE_MODE=644 && run_traced t3.bin "$BIN/limits" calls 10)
	[ "$(stat -c %a t3.bin)" = 640 ] ||
		fail "t3.bin has mode $(stat -c %a t3.bin): the umask must apply"
	for bad in 0666 0622 0400 x 0644x -1; do
		(umask 000 && CTRACE_MODE=$bad CTRACE_OUTPUT=t4.bin \
			"$BIN/limits" calls 10 >out 2>err) || fail "the program failed"
		cat err
		grep -q "^ctrace: CTRACE_MODE=$bad: expected an octal mode from 0600 to 0644 (the trace must be writable by its owner only); using 0600\$" err ||
			fail "no message for CTRACE_MODE=$bad"
		[ "$(stat -c %a t4.bin)" = 600 ] ||
			fail "t4.bin has mode $(stat -c %a t4.bin) with CTRACE_MODE=$bad"
	done
}

# An old trace is replaced by a new file: whoever still has it open reads
# it whole, and the new one has our mode whatever the old one had.
case_replace() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	run_traced t.bin "$BIN/limits" calls 100
	chmod 644 t.bin
	cp t.bin old.copy
	exec 3<t.bin
	# another run (this script's programs are all of one process group)
	CTRACE_RUN=later CTRACE_OUTPUT=t.bin "$BIN/limits" calls 10 >out 2>err ||
		fail "the second run failed"
	cat err
	[ ! -s err ] || fail "the recorder printed warnings"
	cat <&3 >old.read
	exec 3<&-
	cmp old.copy old.read || fail "the old trace changed under its reader"
	[ "$(leaf_calls old.read)" = 100 ] || fail "the old trace lost calls"
	[ "$(leaf_calls t.bin)" = 10 ] || fail "the new trace is wrong"
	[ "$(stat -c %a t.bin)" = 600 ] || fail "the new trace kept the old mode"
}

cfg=$(configs_pie | head -n 1)
[ -n "$cfg" ] || cfg=$(configs | head -n 1)
run_case "setuid-$cfg" case_setuid "$cfg"
run_case "planted-$cfg" case_planted "$cfg"
run_case "dirs-$cfg" case_dirs "$cfg"
run_case "output-planted-$cfg" case_output_planted "$cfg"
run_case "planted-plan-$cfg" case_planted_plan "$cfg"
for cfg in $(configs_pie); do
	run_case "dirs-own-$cfg" case_dirs_own "$cfg"
	run_case "modes-$cfg" case_modes "$cfg"
	run_case "replace-$cfg" case_replace "$cfg"
done

test_finish
