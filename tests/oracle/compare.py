#!/usr/bin/env python3
"""compare.py -- check a trace's calls against the counting oracle.

    compare.py [--counts-only|--lost] PROGRAM ORACLE_PROGRAM TRACE_JSON ORACLE_OUT...

PROGRAM is the build linked with -lctrace that wrote the trace, TRACE_JSON
its `ctrace-symbolize -f json --demangle=none` output; ORACLE_PROGRAM is the
build of the same object files linked with counthook.c, ORACLE_OUT the
files it wrote (one per process).  The two builds place functions at
different addresses, so both sides are keyed by name: each address is named
by the smallest of the symbols defined there in its own binary (aliases
then agree), with the module's base name ("[exe]" for the program).

For every function, the number of calls and the sum of their depths must be
equal (--counts-only: the calls only, for programs whose longjmps,
exceptions or coroutine switches the oracle's depth cannot follow).
--lost, for a trace that counts events lost: every event the oracle
counted is recorded or lost, so for every function the calls (entries)
and the calls whose exit is recorded (those with a duration) are at most
the oracle's calls and exits, and all that the trace lacks adds up to the
events it counts lost, exactly.  Prints each difference and exits 1 if
there is any; prints a summary line and exits 0 otherwise.
"""
import collections
import hashlib
import json
import os
import subprocess
import sys


# The directory of the programs compared: the test's own binaries, whose
# symbols are saved beside them (never beside a system library).
SAVE_DIR = None


def symbols(path, cache={}):
    """Link-time address -> canonical name, for the text symbols of path."""
    if path not in cache:
        if os.path.dirname(os.path.abspath(path)) == SAVE_DIR:
            cache[path] = saved_symbols(path)
        else:
            cache[path] = read_symbols(path)
    return cache[path]


def saved_symbols(path):
    """symbols() of path, read from PATH.syms when that file was written
    for this very file (size, modification time, inode): a program checked
    several times against the oracle is read by nm and objdump once.  With
    CTRACE_TEST_SYMBOLS naming a directory (tests/lib.sh: in the build
    cache), also from there by the file's content: the copies of one
    program that several scripts take from the build cache are read once
    a make check."""
    st = os.stat(path)
    stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
    saved = path + ".syms"
    names = load_symbols(saved, stamp)
    if names is not None:
        return names
    shared = os.environ.get("CTRACE_TEST_SYMBOLS")
    if shared:
        with open(path, "rb") as f:
            digest = hashlib.md5(f.read()).hexdigest()
        shared = os.path.join(shared, digest + ".syms")
        names = load_symbols(shared, digest)
    if names is None:
        names = read_symbols(path)
        if shared:
            store_symbols(shared, digest, names)
    store_symbols(saved, stamp, names)
    return names


def load_symbols(saved, stamp):
    """The names store_symbols saved with stamp, or None."""
    try:
        with open(saved) as f:
            doc = json.load(f)
        if doc["stamp"] == stamp:
            return {int(a): n for a, n in doc["names"].items()}
    except (OSError, ValueError, KeyError):
        pass
    return None


def store_symbols(saved, stamp, names):
    try:
        os.makedirs(os.path.dirname(os.path.abspath(saved)), exist_ok=True)
        tmp = "%s.%d" % (saved, os.getpid())
        with open(tmp, "w") as f:
            json.dump({"stamp": stamp, "names": names}, f)
        os.replace(tmp, saved)
    except OSError:
        pass  # a directory we cannot write: read it each time


def read_symbols(path):
    """Link-time address -> canonical name, read by nm and objdump."""
    names = collections.defaultdict(list)
    out = subprocess.run(["nm", "--defined-only", path],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWwi":
            names[int(parts[0], 16)].append(parts[2])
    # PLT entries (a clang -O2 program instruments glibc's inline
    # atoi there) have no symbol: objdump names them NAME@plt.
    out = subprocess.run(["objdump", "-d", "-j", ".plt", "-j", ".plt.sec",
                          path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if (len(parts) == 2 and parts[1].endswith("@plt>:")
                and int(parts[0], 16) not in names):
            names[int(parts[0], 16)].append(parts[1][1:-2])
    return {a: min(n) for a, n in names.items()}


def key(module, path, address):
    name = symbols(path).get(address)
    base = "[exe]" if module == "[exe]" else os.path.basename(module)
    return (base, name if name else "%s+%#x" % (base, address))


def oracle_counts(program, files):
    counts = collections.Counter()
    exits = collections.Counter()
    depths = collections.Counter()
    for f in files:
        with open(f) as lines:
            for line in lines:
                module, address, calls, n_exits, depth_sum = line.split()
                path = program if module == "[exe]" else module
                k = key(module, path, int(address, 16))
                counts[k] += int(calls)
                exits[k] += int(n_exits)
                depths[k] += int(depth_sum)
    return counts, exits, depths


# The calls of the JSON document summed per function, library and address
# by awk, which reads the lines of a trace of millions of calls ten times
# as fast as json.loads: "C CALLS EXITS DEPTH_SUM HEAD" where HEAD is the
# call's line up to its address (its first members), then "R LINE" for
# each line after the calls (the lost events and the header).  The first
# `"duration": ' and `"depth": ' of a line are the members: in a string,
# every quote is escaped.
SUM_CALLS = r"""
NR == 1 {
    if (index($0, "{\"calls\": [") != 1) bad = 1
    next
}
!rest && index($0, "{\"function\": ") == 1 {
    a = index($0, "\"address\": \"")
    t = substr($0, a + 12)
    head = substr($0, 1, a + 11 + index(t, "\""))
    d = substr($0, index($0, "\"duration\": ") + 12)
    n = substr($0, index($0, "\"depth\": ") + 9)
    sub(/[^0-9].*/, "", n)
    calls[head]++
    exits[head] += substr(d, 1, 4) != "null"
    depths[head] += n
    next
}
{ rest = 1; print "R " $0 }
END {
    if (bad || NR == 0) { print "bad"; exit }
    for (h in calls) printf "C %d %d %.0f %s\n", calls[h], exits[h], depths[h], h
}
"""


def trace_counts(program, trace_json):
    """The calls summed by SUM_CALLS, then the header after them."""
    per_address = collections.Counter()
    exits_per_address = collections.Counter()
    depth_per_address = collections.Counter()
    rest = []
    env = dict(os.environ, LC_ALL="C")
    summed = subprocess.run(["awk", SUM_CALLS, trace_json], env=env,
                            capture_output=True, check=True).stdout
    for line in summed.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("R "):
            rest.append(line[2:] + "\n")
        elif line.startswith("C "):
            calls, exits, depth_sum, head = line[2:].split(" ", 3)
            call = json.loads(head + "}")
            a = (call.get("library"), call["address"], call["function"])
            per_address[a] += int(calls)
            exits_per_address[a] += int(exits)
            depth_per_address[a] += int(depth_sum)
        else:
            sys.exit("%s: not a ctrace JSON document" % trace_json)
    doc = json.loads('{"calls": [' + "".join(rest))
    bias = {}
    for proc in doc["header"]["processes"]:
        for m in proc["modules"]:
            module = "[exe]" if m["path"] == proc["program"] else m["path"]
            bias[m["path"]] = (module, int(m["load_bias"], 16))
    counts = collections.Counter()
    exits = collections.Counter()
    depths = collections.Counter()
    for (library, address, function), n in per_address.items():
        if library in bias:
            module, load_bias = bias[library]
            path = program if module == "[exe]" else library
            k = key(module, path, int(address, 16) - load_bias)
        else:
            k = ("?", function)
        counts[k] += n
        exits[k] += exits_per_address[(library, address, function)]
        depths[k] += depth_per_address[(library, address, function)]
    return counts, exits, depths, doc.get("lost_events", 0)


def check_lost(want_calls, want_exits, got_calls, got_exits, lost):
    """--lost: returns the number of differences, printing each."""
    bad = 0
    missing = 0
    for k in sorted(set(want_calls) | set(got_calls)):
        for what, w, g in (("calls", want_calls[k], got_calls[k]),
                           ("exits", want_exits[k], got_exits[k])):
            if g > w:
                print("%s %s: %d %s, oracle %d" % (k[0], k[1], g, what, w))
                bad += 1
            missing += w - g
    if missing != lost:
        print("%d events missing from the trace, %d counted lost" %
              (missing, lost))
        bad += 1
    return bad


def main(argv):
    counts_only = "--counts-only" in argv
    lost_mode = "--lost" in argv
    args = [a for a in argv if a not in ("--counts-only", "--lost")]
    if len(args) < 4:
        sys.exit(__doc__)
    program, oracle_program, trace_json, outs = args[0], args[1], args[2], args[3:]
    global SAVE_DIR
    SAVE_DIR = os.path.dirname(os.path.abspath(program))
    want_calls, want_exits, want_depths = oracle_counts(oracle_program, outs)
    got_calls, got_exits, got_depths, lost = trace_counts(program, trace_json)
    if lost_mode:
        bad = check_lost(want_calls, want_exits, got_calls, got_exits, lost)
        if bad:
            print("the trace and the oracle differ in %d ways" % bad)
            return 1
        print("%d functions, %d events: each recorded or counted lost"
              " (%d)" % (len(want_calls),
                         sum(want_calls.values()) + sum(want_exits.values()),
                         lost))
        return 0
    bad = 0
    for k in sorted(set(want_calls) | set(got_calls)):
        w, g = want_calls[k], got_calls[k]
        if w != g:
            print("%s %s: %d calls, oracle %d" % (k[0], k[1], g, w))
            bad += 1
        elif not counts_only and want_depths[k] != got_depths[k]:
            print("%s %s: depth sum %d, oracle %d" %
                  (k[0], k[1], got_depths[k], want_depths[k]))
            bad += 1
    total = sum(want_calls.values())
    if bad:
        print("%d of %d functions differ from the oracle" %
              (bad, len(want_calls)))
        return 1
    print("%d functions, %d calls: equal to the oracle%s" %
          (len(want_calls), total, " (calls)" if counts_only else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
