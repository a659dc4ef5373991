#!/bin/sh
# hostile.sh -- the symbolizer on input crafted to break it: names holding
# every byte, debug links to FIFOs and devices, an output that is an input,
# time that goes backwards.  Each output is checked by its own parser.

. "$(dirname "$0")/lib.sh"
test_init hostile

: "${MKTRACE:=$top_builddir/tests/mktrace}"
[ -x "$MKTRACE" ] || skip_script "$MKTRACE not built"

# Every byte class a name can hold: ESC and other control characters,
# newline, tab, CR, DEL, a C1 control (U+009B, CSI), bytes that are not
# UTF-8 (0xff, 0xfe, an overlong '/', a surrogate), quotes, markup, the
# folded separator ';', a backslash, a space, and valid UTF-8 (the euro
# sign) that must come out unchanged.  In mktrace's \xHH notation.
H='h\x1b[31m\x0a\x09\x0d\x01\x7f\xc2\x9b\xff\xfe\xc0\xaf\xed\xa0\x80"<&>\x27;\x5c\x20;x\xe2\x82\xac'

# A trace whose module, thread, executable, argv and marker all carry $H:
# the module is not on disk, so function names are MODULE+0xOFFSET.
hostile_trace() {
	printf '%s\n' meta "process 1 0 /bin/p$H" "argv p$H a$H" \
		"module /nonexistent/lib$H.so 0x1000 0x100000" \
		"thread 1 100 t$H" 'events 1 tid=100' \
		'enter 0x1000 0x1' 'enter 0x2000 0x1010' 'enter 0x3000 0x2010' \
		'ext 6 e8030000000000000048692a2f1b0a' \
		'leave 0x3000 0x2010' 'leave 0x2000 0x1010' \
		'leave 0x1000 0x1' | "$MKTRACE" h.bin || fail "mktrace failed"
}

# sym FORMAT [OPTIONS]: h.bin in FORMAT into h.FORMAT.
sym() {
	f=$1
	shift
	"$CTRACE_SYMBOLIZE" -f "$f" "$@" h.bin >"h.$f" 2>"h.$f.err"
	[ $? -le 1 ] || { cat "h.$f.err"; fail "$f: crashed"; }
}

# Text output: UTF-8, and no control character but the newline, no C1.
check_text() {
	"$PYTHON3" -S - "$1" <<'EOF' || fail "$1: not clean text"
import sys
t = open(sys.argv[1], 'rb').read().decode('utf-8')
bad = [hex(ord(c)) for c in t
       if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) < 0xa0]
if bad:
    sys.exit('%s: %s' % (sys.argv[1], bad[:5]))
if '\u20ac' not in t:
    sys.exit('%s: valid UTF-8 was changed' % sys.argv[1])
EOF
}

case_names_text() {
	need_python
	hostile_trace
	for f in tree report; do
		sym $f
		check_text h.$f
		check_text h.$f.err # the messages name the module too
	done
	sym tree --per-thread --srcline
	check_text h.tree
	sym report --per-thread
	check_text h.report
	grep -q 'th\\x1b\[31m\\n' h.report ||
		fail "thread name not shown escaped"
	[ "$(grep -c 'lib' h.tree)" -eq 6 ] || fail "a name split the tree"
}

# The graph of a function whose name holds every byte: its lines are
# clean text, the name shown escaped in the backtrace and the callees.
case_names_graph() {
	need_python
	hostile_trace
	fn=$("$PYTHON3" -S -c 'import re, sys
h = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
           sys.argv[1].encode())
sys.stdout.buffer.write(b"lib" + h + b".so+0x2000")' "$H")
	sym graph --function="$fn"
	check_text h.graph
	[ "$(grep -c 'lib' h.graph)" -eq 5 ] || { cat -v h.graph; fail "a name split the graph"; }
	grep -q '^ backtrace #0: hit 1, time ' h.graph || fail "no backtrace"
	# graph-stats: tab-separated fields, none split by a name
	sym graph-stats --function="$fn"
	"$PYTHON3" -S - h.graph-stats <<'EOF' || fail "graph-stats: a name split a line or a field"
import sys
t = open(sys.argv[1], 'rb').read().decode('utf-8')
lines = t.split('\n')
assert lines.pop() == '', 'no final newline'
kinds = [l[0] for l in lines]
assert kinds[0] == '#' and len(lines[0].split('\t')) == 2, lines[0]
assert 'B' in kinds and 'C' in kinds, kinds
for l in lines:
    f = l.split('\t')
    assert l[0] != 'C' or len(f) == 5, l
    assert all(ord(c) >= 0x20 and not 0x7f <= ord(c) < 0xa0
               for c in ''.join(f)), l
    assert l[0] == '#' or f[-1].startswith('lib'), l
EOF
}

case_names_folded() {
	need_python
	hostile_trace
	for w in time calls; do
		sym folded --weight=$w
		check_text h.folded
		# frame(;frame)* count, three frames deep at most, three stacks
		"$PYTHON3" -S - h.folded <<'EOF' || fail "folded grammar"
import re, sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
assert lines[-1] == '', 'no final newline'
lines = lines[:-1]
assert len(lines) == 3, lines
for l in lines:
    m = re.fullmatch(r'([^;\n]+(?:;[^;\n]+)*) ([0-9]+)', l)
    assert m, l
    assert len(m.group(1).split(';')) <= 3, l
EOF
	done
}

case_names_json() {
	need_python
	hostile_trace
	for f in json chrome; do
		sym $f
		"$PYTHON3" -S -c 'import json, sys
json.load(open(sys.argv[1], encoding="utf-8"))' h.$f ||
			fail "$f: not valid JSON in UTF-8"
		grep -q 'libh\\u001b\[31m\\n\\t\\r' h.$f ||
			fail "$f: control characters not escaped"
	done
}

# Perfetto: protobuf strings hold UTF-8 (bytes that are not become
# U+FFFD, as in JSON), and the slices are the JSON's calls.
case_names_perfetto() {
	need_python
	command -v protoc >/dev/null 2>&1 || skip "protoc not found"
	hostile_trace
	sym perfetto
	sym json
	"$PYTHON3" -S "$top_srcdir/tests/outputs/perfetto_check.py" \
		"$top_srcdir/tests/outputs" h.perfetto h.json >check 2>&1 ||
		{ cat check; fail "perfetto: not the JSON's calls"; }
	grep -q '3 slices' check || { cat check; fail "not three slices"; }
	"$PYTHON3" -S "$top_srcdir/tests/outputs/perfetto_check.py" --list \
		"$top_srcdir/tests/outputs" h.perfetto h.json >list 2>&1 ||
		fail "perfetto: cannot list"
	grep -q "$(printf 'libh\033\\[31m\n')" list ||
		fail "perfetto: control characters changed"
	grep -q "$(printf '\342\202\254')" list ||
		fail "perfetto: valid UTF-8 changed"
}

case_names_svg() {
	command -v xmllint >/dev/null || skip "xmllint not found"
	hostile_trace
	sym flamegraph
	xmllint --noout h.flamegraph || fail "flame graph: not valid XML"
}

case_names_dot() {
	command -v dot >/dev/null || skip "graphviz not found"
	hostile_trace
	sym dot
	dot -Tsvg h.dot >h.svg 2>h.dot.msg || fail "dot refused the graph"
	[ ! -s h.dot.msg ] || { cat h.dot.msg; fail "dot complained"; }
	[ "$(grep -c '^  n[0-9]* \[label=' h.dot)" -eq 3 ] ||
		fail "not three nodes"
	if command -v xmllint >/dev/null; then
		xmllint --noout h.svg || fail "dot's SVG: not valid XML"
	fi
}

# -o naming one of the inputs, by its name or through a link: refused,
# the trace intact.
case_output_is_input() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1' 'leave 0x1000 0x1' |
		"$MKTRACE" t.bin || fail "mktrace failed"
	cp t.bin orig.bin
	ln -s t.bin link.bin
	ln t.bin hard.bin
	for o in t.bin ./t.bin link.bin hard.bin; do
		"$CTRACE_SYMBOLIZE" -o "$o" t.bin 2>err
		[ $? -eq 1 ] || fail "-o $o: not exit status 1"
		grep -q 'is the input' err || { cat err; fail "-o $o: no message"; }
		cmp t.bin orig.bin || fail "-o $o: the trace was changed"
	done
	"$CTRACE_SYMBOLIZE" -o t.bin . 2>err
	[ $? -eq 1 ] || fail "-o t.bin with its directory: not refused"
	cmp t.bin orig.bin || fail "the trace was changed"
	# through the launcher, which hands -o to the symbolizer
	if [ -x "$top_builddir/ctrace" ]; then
		"$top_builddir/ctrace" replay -o t.bin t.bin 2>err
		[ $? -eq 1 ] || fail "ctrace replay -o t.bin t.bin: not refused"
		cmp t.bin orig.bin || fail "ctrace replay changed the trace"
	fi
	# the capture plan maker, over the program it reads
	printf 'int main(void) { return 0; }\n' >p.c
	"$CC" -g -o p p.c || skip "cannot build"
	cp p p.orig
	"$CTRACE_SYMBOLIZE" --make-plan -o p p 2>err
	[ $? -eq 1 ] || fail "--make-plan -o PROGRAM PROGRAM: not refused"
	cmp p p.orig || fail "--make-plan overwrote the program"
}

# A run that fails leaves the old output as it was, and no file behind.
case_output_atomic() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1' 'leave 0x1000 0x1' |
		"$MKTRACE" t.bin || fail "mktrace failed"
	"$MKTRACE" --synthetic=200000 big.bin || fail "mktrace failed"
	echo old >out.txt
	(ulimit -f 8; exec "$CTRACE_SYMBOLIZE" -o out.txt big.bin) 2>err
	[ $? -ne 0 ] || fail "writing past ulimit -f did not fail"
	[ "$(cat out.txt)" = old ] || fail "a failed run changed the output"
	[ "$(ls -A | grep -c 'out.txt')" -eq 1 ] ||
		{ ls -A; fail "a temporary file was left"; }
	"$CTRACE_SYMBOLIZE" -o out.txt t.bin || fail "a good run failed"
	grep -q '0x1000' out.txt || fail "a good run wrote nothing"
	[ "$(ls -A | grep -c 'out.txt')" -eq 1 ] || fail "a file was left"
	"$CTRACE_SYMBOLIZE" -o /dev/null t.bin || fail "-o /dev/null failed"
	"$CTRACE_SYMBOLIZE" -o /dev/stdout t.bin >so.txt ||
		fail "-o /dev/stdout failed"
	grep -q '0x1000' so.txt || fail "-o /dev/stdout wrote nothing"
}

# A stripped program whose .gnu_debuglink names a FIFO, or a link to
# /dev/zero: the symbolizer must neither block nor read forever.
debuglink_case() {
	[ -n "$CC" ] || skip "no C compiler"
	printf 'int main(void) { return 0; }\n' >p.c
	"$CC" -g -o p p.c || skip "cannot build"
	objcopy --only-keep-debug p p.debug &&
		objcopy --strip-debug --remove-section=.note.gnu.build-id \
			--add-gnu-debuglink=p.debug p p.stripped ||
		skip "objcopy cannot make a debug link"
	rm p.debug
	case $1 in
	fifo) mkfifo p.debug || skip "no FIFO" ;;
	zero) ln -s /dev/zero p.debug ;;
	esac
	addr=$(nm p.stripped | awk '$3 == "main" { print $1 }')
	printf '%s\n' meta "module $PWD/p.stripped 0 0x100000000" \
		'events 1' "enter 0x$addr 0x1" "leave 0x$addr 0x1" |
		"$MKTRACE" t.bin || fail "mktrace failed"
	timeout 60 "$CTRACE_SYMBOLIZE" --srcline t.bin >out 2>err
	status=$?
	cat err
	[ $status -ne 124 ] || fail "hangs on a debug link to $1"
	[ $status -eq 0 ] || fail "exit status $status"
	grep -q 'main()' out || fail "main not named"
}

case_debuglink_fifo() {
	debuglink_case fifo
}

case_debuglink_zero() {
	debuglink_case zero
}

# dwz's shared debug information (.gnu_debugaltlink) replaced by a FIFO:
# libbfd and libdw would open it themselves and wait for a writer.  The
# tree, the values and --make-plan finish, and say why names are missing.
case_altlink_fifo() {
	[ -n "$CC" ] || skip "no C compiler"
	command -v dwz >/dev/null || skip "dwz not installed"
	printf '%s
' 'struct big { int a, b, c, d; long e; };' \
		'__attribute__((noinline)) int use(struct big *p, int k)' \
		'{ return p->a + k; }' \
		'int main(void) { struct big b = {1, 2, 3, 4, 5};' \
		'return use(&b, 3) != 4; }' >p.c
	"$CC" -g -O0 -finstrument-functions -o p p.c \
		"$CTRACE_LIBDIR/libctrace.a" -pthread || fail "build failed"
	cp p q
	dwz -m common.dwz -M common.dwz p q 2>dwz.err ||
		skip "dwz cannot share: $(head -n 1 dwz.err)"
	CTRACE_ARGS=all CTRACE_OUTPUT=t.bin ./p || fail "p failed"
	"$CTRACE_SYMBOLIZE" t.bin >good || fail "no tree with the real file"
	grep -q 'use(p=0x[0-9a-f]*, k=3)' good || { cat good; fail "no values"; }
	rm common.dwz && mkfifo common.dwz || skip "no FIFO"
	timeout 60 "$CTRACE_SYMBOLIZE" --srcline t.bin >out 2>err
	status=$?
	cat err
	[ $status -ne 124 ] || fail "hangs on a .gnu_debugaltlink FIFO"
	[ $status -eq 0 ] || fail "exit status $status"
	grep -q 'use(' out || fail "use not named"
	grep -q 'common.dwz is not a regular file; ignored' err ||
		fail "no warning"
	timeout 60 "$CTRACE_SYMBOLIZE" --make-plan -o plan p 2>err
	status=$?
	[ $status -ne 124 ] || fail "--make-plan hangs on the FIFO"
}

# A chunk whose time base is before the thread's previous event: said,
# with its offset, and no duration comes out negative or huge.
case_time_backwards() {
	need_python
	printf '%s\n' 'events 1 tid=1 base=100000' 'enter 0x1000 0x1' \
		'enter 0x2000 0x2' 'events 1 new base=100' \
		'leave 0x2000 0x2' 'leave 0x1000 0x1' |
		"$MKTRACE" t.bin || fail "mktrace failed"
	"$CTRACE_SYMBOLIZE" -f chrome -o t.json t.bin 2>err
	[ $? -eq 1 ] || fail "not exit status 1"
	grep -q 'thread 1: time goes back by 99920 ticks.* at offset 8192' err ||
		{ cat err; fail "no message"; }
	"$PYTHON3" -S - t.json <<'EOF' || fail "bad durations"
import json, sys
for e in json.load(open(sys.argv[1]))['traceEvents']:
    if e.get('ph') == 'X':
        assert 0 < e['dur'] < 1, e
EOF
}

# Thousands of modules, none on disk: each function is named after the
# module that covers it -- one module spans all the others, which win
# there as the ones declared later -- and the missing files make one
# warning and a count, not one line per module.
case_many_modules() {
	need_python
	"$PYTHON3" -S - <<'EOF' >m.txt || fail "python failed"
n = 3000
print('meta')
print('module /nonexistent/all.so 0x10000000 0x90000000')
for i in range(n):
    a = 0x20000000 + i * 0x10000
    print('module /nonexistent/m%d.so 0x%x 0x%x' % (i, a, a + 0x10000))
print('events 1 tid=1')
for i in reversed(range(n)):
    a = 0x20000000 + i * 0x10000 + 0x100
    print('enter 0x%x 0x1 @%d' % (a, 1100 + (n - i) * 20))
    print('leave 0x%x 0x1' % a)
print('enter 0x10000100 0x1')
print('leave 0x10000100 0x1')
EOF
	"$MKTRACE" m.bin m.txt || fail "mktrace failed"
	"$CTRACE_SYMBOLIZE" --no-duration m.bin >out 2>err ||
		{ cat err; fail "exit status $?"; }
	[ "$(wc -l <err)" -le 2 ] || { head err; fail "a warning per module"; }
	grep -q '3000 more modules not found' err ||
		{ cat err; fail "no count of the missing modules"; }
	"$PYTHON3" -S - out <<'EOF' || fail "wrong module chosen"
import re, sys
names = re.findall(r'\| (\S+)\(\);', open(sys.argv[1]).read())
n = 3000
want = ['m%d.so+0x%x' % (i, 0x20000100 + i * 0x10000)
        for i in reversed(range(n))]
want += ['all.so+0x10000100']
assert names == want, [(a, b) for a, b in zip(names, want) if a != b][:3]
EOF
}

# A recursion 2000 calls deep: the folded stacks and the tree stay
# proportional to the trace (--max-depth, 256 by default), and
# --max-depth=0 gives every frame.
case_deep_recursion() {
	need_python
	"$PYTHON3" -S -c 'print("events 1 tid=1")
for i in range(2000): print("enter 0x1000 0x1")
for i in range(2000): print("leave 0x1000 0x1")' >d.txt
	"$MKTRACE" d.bin d.txt || fail "mktrace failed"
	"$CTRACE_SYMBOLIZE" -f folded --weight=calls d.bin >f.txt ||
		fail "folded failed"
	"$PYTHON3" -S - f.txt 256 <<'EOF' || fail "folded not capped"
import sys
lines = open(sys.argv[1]).read().splitlines()
cap = int(sys.argv[2])
frames = [l.rsplit(' ', 1)[0].split(';') for l in lines]
assert max(len(f) for f in frames) == cap + 1, max(len(f) for f in frames)
deeper = [l for l in lines if ';[deeper] ' in l]
assert len(deeper) == 1 and deeper[0].endswith(' %d' % (2000 - cap)), deeper
assert sum(int(l.rsplit(' ', 1)[1]) for l in lines) == 2000
EOF
	"$CTRACE_SYMBOLIZE" -f folded --weight=calls --max-depth=0 d.bin \
		>full.txt || fail "folded --max-depth=0 failed"
	[ "$(tail -n 1 full.txt | tr ';' '\n' | wc -l)" -eq 2000 ] ||
		fail "--max-depth=0: not every frame"
	"$CTRACE_SYMBOLIZE" --no-duration d.bin >t.txt || fail "tree failed"
	[ "$(wc -l <t.txt)" -eq 4000 ] || fail "tree lines missing"
	[ "$(awk '{ if (length($0) > n) n = length($0) } END { print n }' \
		t.txt)" -lt 600 ] || fail "tree indented past --max-depth"
	grep -q '^ *\[ *1\] | *\[depth 1999\] 0x1000();$' t.txt ||
		fail "the depth of the deepest call not shown"
}

# Binaries the fuzz target (fuzz/fuzz_elf) found a problem with, each the
# module of a trace: read in bounded memory, named as module+offset at
# worst, and --make-plan survives them.
case_elf_crashers() {
	for f in "$top_srcdir"/tests/reliability/crashers/elf/*; do
		[ -f "$f" ] || continue
		cp "$f" m
		printf '%s\n' meta "module $PWD/m 0 0x100000000" 'events 1' \
			'enter 0x1000 0x1' 'leave 0x1000 0x1' |
			"$MKTRACE" t.bin || fail "mktrace failed"
		(ulimit -v 400000; exec "$CTRACE_SYMBOLIZE" t.bin) >out 2>err
		status=$?
		cat err
		[ $status -le 1 ] || fail "$f: exit status $status"
		! grep -q 'Cannot allocate memory' err ||
			fail "$f: allocates what the file does not hold"
		"$CTRACE_SYMBOLIZE" --make-plan -o plan m >/dev/null 2>&1
		[ $? -le 1 ] || fail "$f: --make-plan crashed"
	done
}

# The report of an empty thread list (UBSan: qsort of NULL).
case_report_empty() {
	san=${SYMBOLIZE_SAN:-$top_builddir/tests/ctrace-symbolize-san}
	[ -x "$san" ] || skip "$san not built"
	printf '%s\n' meta 'thread 1 100 main' | "$MKTRACE" e.bin ||
		fail "mktrace failed"
	UBSAN_OPTIONS=halt_on_error=1:exitcode=87 ASAN_OPTIONS=detect_leaks=0 \
		"$san" -f report --per-thread -F nomatch e.bin >out 2>err
	status=$?
	cat err
	[ $status -le 1 ] || fail "exit status $status"
	! grep -q 'runtime error' err || fail "UBSan report"
}

# The report's rows against their definition, computed here from the
# trace: threads running at the same time, recursion in each (total counts
# a thread's outermost calls only, however the threads interleave),
# functions called once with and without callees, calls never returned,
# and more functions open at once than a small table holds.  Every time is
# below a millisecond: the report shows it to the nanosecond.
case_report_rows() {
	need_python
	"$PYTHON3" -S - r.txt want.txt <<'EOF' || fail "python failed"
import random, sys
rnd = random.Random(12)
script, want = open(sys.argv[1], 'w'), open(sys.argv[2], 'w')
rows = {}  # (thread, function) -> [calls, returned, total, self, sum, min, max]
def row(th, fn):
    return rows.setdefault((th, fn), [0, 0, 0, 0, 0, None, None])
once = iter(range(0x100000, 0x200000, 0x10))
for th in (1, 2, 3):
    script.write('events %d tid=%d\n' % (th, 100 + th))
    t, stack = 1000, []
    for step in range(4000):
        t += rnd.randint(1, 3)
        if stack and (len(stack) > 300 or rnd.random() < 0.45):
            fn, start, child = stack.pop()
            ns = t - start
            r = row(th, fn)
            r[0] += 1; r[1] += 1; r[4] += ns
            r[3] += max(ns - child, 0)
            if all(f[0] != fn for f in stack):
                r[2] += ns
            r[5] = ns if r[5] is None else min(r[5], ns)
            r[6] = ns if r[6] is None else max(r[6], ns)
            if stack:
                stack[-1][2] += ns
            script.write('leave 0x%x 0x1 @%d\n' % (fn, t))
            continue
        k = rnd.random()
        if k < 0.2 and stack:
            fn = rnd.choice(stack)[0]  # recursion
        elif k < 0.35:
            fn = next(once)            # a function called once
        else:
            fn = 0x1000 + 0x10 * rnd.randrange(500)
        stack.append([fn, t, 0])
        script.write('enter 0x%x 0x1 @%d\n' % (fn, t))
    for fn, start, child in stack:     # never returned
        row(th, fn)[0] += 1
merged = {}
for (th, fn), r in sorted(rows.items()):
    m = merged.setdefault(fn, [0, 0, 0, 0, 0, None, None])
    for i in range(5):
        m[i] += r[i]
    for i, pick in ((5, min), (6, max)):
        if r[i] is not None:
            m[i] = r[i] if m[i] is None else pick(m[i], r[i])
def put(key, r):
    calls, ret, total, self_, sum_, lo, hi = r
    v = [calls, '-', '-', '-', '-', '-'] if not ret else \
        [calls, total, self_, sum_ // ret, lo, hi]
    want.write('%s %s\n' % (key, ' '.join(map(str, v))))
for (th, fn), r in sorted(rows.items()):
    put('%d/0x%x' % (th, fn), r)
for fn, m in sorted(merged.items()):
    put('0x%x' % fn, m)
EOF
	"$MKTRACE" r.bin r.txt || fail "mktrace failed"
	{ "$CTRACE_SYMBOLIZE" -f report --per-thread r.bin >per.txt &&
		"$CTRACE_SYMBOLIZE" -f report r.bin >all.txt; } 2>err ||
		{ cat err; fail "report failed"; }
	"$PYTHON3" -S - per.txt all.txt want.txt <<'EOF' || fail "rows differ"
import re, sys
def ns(v, unit):
    assert unit == 'us', unit
    a, b = v.split('.')
    return int(a) * 1000 + int(b)
got = {}
for path, per in ((sys.argv[1], True), (sys.argv[2], False)):
    prefix = ''
    for line in open(path):
        m = re.match(r'# thread (\d+)$', line)
        if m:
            prefix = '%d/' % (int(m.group(1)) - 100)
            continue
        f = line.split()
        if not f or f[0] in ('Total', '=========='):
            continue
        if f[0] == '-':  # calls that never returned only
            assert f[1] == '-' and f[3:6] == ['-'] * 3, line
            got[prefix + f[6]] = [int(f[2])] + ['-'] * 5
        else:
            got[prefix + f[11]] = [ns(f[0], f[1]), ns(f[2], f[3]), int(f[4]),
                                   ns(f[5], f[6]), ns(f[7], f[8]),
                                   ns(f[9], f[10])]
            v = got[prefix + f[11]]
            got[prefix + f[11]] = [v[2], v[0], v[1], v[3], v[4], v[5]]
want = {}
for line in open(sys.argv[3]):
    f = line.split()
    want[f[0]] = [x if x == '-' else int(x) for x in f[1:]]
assert set(got) == set(want), sorted(set(got) ^ set(want))[:5]
bad = [(k, want[k], got[k]) for k in sorted(want) if want[k] != got[k]]
assert not bad, bad[:3]
assert len(want) > 500, len(want)
EOF
}

for c in names_text names_graph names_folded names_json names_perfetto \
	names_svg names_dot \
	output_is_input output_atomic debuglink_fifo debuglink_zero \
	altlink_fifo time_backwards many_modules deep_recursion elf_crashers report_empty \
	report_rows; do
	run_case "$c" "case_$c"
done
test_finish
