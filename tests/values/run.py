#!/usr/bin/env python3
"""run.py -- the value fuzzer: generated programs (gen.py) built with gcc
and clang at -O0 -O1 -O2 -O3 -Os -Og, x86-64 and i386, recorded with
--args --retval with a capture plan and without, every value shown
compared with the one the program printed (check.py).

usage: run.py [--seeds A,B,...] [--seconds N] [--build 'gcc -O2 x86_64']...
              [--jobs N] [--floor FILE] [--table FILE] [--work DIR] [--keep]
              [--reduce] [--write-floor FILE] [--name NAME]
              [--source FILE] [--list-builds]

--seeds: fixed seeds (make check); --seconds: new random seeds for that
long (make fuzz-values).  Every (seed, build) is one program; the checks
run on it are listed in CHECKS (add a per-program check there).  Prints,
in the style of the test harness, `ok NAME counts` or `FAIL NAME` per
build (NAME: gcc-O2-x86_64 for the build 'gcc -O2 x86_64', or --name's
for a single --build) and `N passed, N failed`.  A build fails on any
wrong value, and, given --floor, when its recovered share falls below
the floor's.  Each failing program prints the one command that
reproduces it; --reduce then shrinks it (reduce.py) into a regression
case under tests/args/.  A program that is no oracle (undefined behaviour
found by a sanitized gcc -O0 reference build of the same source, other
values printed by a build or a run than by that reference, a crash, a
run over 60 s) is a generator defect: its values are not compared, and
the case `generator` fails listing it with its reproducing command.
--list-builds prints the builds this machine makes, one a line after its
name, and nothing else.

Environment (make check sets it): CTRACE_SYMBOLIZE, CTRACE_LIBDIR,
CTRACE_INCDIR, top_srcdir, top_builddir, CLANG (empty: gcc only),
HAVE_M32 (yes: i386 builds too).
"""

import collections
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import check  # noqa: E402
TOP_SRC = os.environ.get("top_srcdir") or os.path.dirname(os.path.dirname(HERE))
TOP_BUILD = os.environ.get("top_builddir") or os.getcwd()
SYMBOLIZE = os.environ.get("CTRACE_SYMBOLIZE") or os.path.join(TOP_BUILD, "ctrace-symbolize")
LIBDIR = os.environ.get("CTRACE_LIBDIR") or os.path.join(TOP_BUILD, "lib")
INCDIR = os.environ.get("CTRACE_INCDIR") or os.path.join(TOP_SRC, "include")
OPTS = ["0", "1", "2", "3", "s", "g"]


def all_builds():
    ccs = ["gcc"]
    if os.environ.get("CLANG", "clang"):
        ccs.append("clang")
    archs = ["x86_64"]
    m32lib = os.path.join(TOP_BUILD, "tests", "m32", "libctrace.a")
    if os.environ.get("HAVE_M32", "yes") == "yes" and os.path.exists(m32lib):
        archs.append("i386")
    return ["%s -O%s %s" % (cc, o, a) for a in archs for cc in ccs for o in OPTS]


def build_name(build):
    """A build's case name: gcc-O2-x86_64 for 'gcc -O2 x86_64'."""
    cc, opt, arch = build.split()
    return "%s%s-%s" % (cc, opt, arch)


def lang_of(seed):
    return "c++" if seed % 3 == 2 else "c"


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          **kw)


def reproduce(seed, build):
    return "%s %s --seeds %d --build '%s' --keep" % (
        sys.executable, os.path.join(HERE, "run.py"), seed, build)


# ---------------------------------------------------------------------------
# Per-program checks: each takes the built program's context and returns
# (counts dict, list of failure messages).  Another check (a counting
# oracle linked into the same objects) is added by appending to CHECKS.
# ---------------------------------------------------------------------------

def check_values(ctx):
    counts = {}
    fails = []
    env = dict(os.environ, CTRACE_ARGS="all", CTRACE_RETVAL="all")
    for k in list(env):
        if k.startswith("CTRACE_") and k not in ("CTRACE_ARGS", "CTRACE_RETVAL"):
            del env[k]
    # plan: --args --retval with the capture plan; noplan: without it;
    # args: --args alone with the plan (return value capture changes the
    # call tree where gcc inlined, see check.py: more calls compared);
    # retval: --retval alone with the plan (entries take the plain hook,
    # and those that set a trampoline find the frame without the
    # callee-saved registers).
    for mode in ("plan", "noplan", "args", "retval"):
        if ctx["defects"]:
            break   # no oracle: the other runs would tell no more
        d = ctx["dir"]
        e = dict(env, CTRACE_OUTPUT=os.path.join(d, mode + ".bin"))
        if mode != "noplan":
            e["CTRACE_PLAN"] = os.path.join(d, "prog.plan")
        if mode == "args":
            del e["CTRACE_RETVAL"]
        if mode == "retval":
            del e["CTRACE_ARGS"]
        try:
            r = run([os.path.join(d, "prog")], env=e, cwd=d, timeout=60)
        except subprocess.TimeoutExpired:
            ctx["defects"].append("the %s run took over 60 s" % mode)
            continue
        out = os.path.join(d, mode + ".out")
        with open(out, "wb") as fh:
            fh.write(r.stdout)
        if r.returncode != 0:
            ctx["defects"].append("the %s run %s" % (mode, exit_text(r.returncode)))
            continue
        # The printed values are an oracle only if they are the same in
        # every run and in every build: else the program reads something
        # undefined (its values are not compared).
        lines = oracle(r.stdout)
        ref = ctx["ref"]
        if ref is not None and not same_oracle(lines, ref["lines"]):
            ctx["defects"].append("the %s run printed other values than %s: %s" % (
                mode, ref["what"], first_difference(lines, ref["lines"])))
            continue
        if ctx["lines"] is not None and not same_oracle(lines, ctx["lines"][1]):
            ctx["defects"].append("the %s run printed other values than the %s run: %s" % (
                mode, ctx["lines"][0], first_difference(lines, ctx["lines"][1])))
            continue
        ctx["lines"] = (mode, lines)
        js = os.path.join(d, mode + ".json")
        with open(js, "wb") as fh:
            s = subprocess.run([SYMBOLIZE, "-f", "json", e["CTRACE_OUTPUT"]],
                               stdout=fh, stderr=subprocess.PIPE, timeout=120)
        if s.returncode != 0:
            fails.append("%s: ctrace-symbolize failed: %s" %
                         (mode, s.stderr.decode(errors="replace")[:300]))
            continue
        c = run([sys.executable, "-S", os.path.join(HERE, "check.py")] +
                (["--no-plan"] if mode == "noplan" else []) +
                [out, js, mode], timeout=120)
        words = c.stdout.decode().split()
        for w in words[1:]:
            k, v = w.split("=")
            counts["%s_%s" % (mode, k)] = counts.get("%s_%s" % (mode, k), 0) + int(v)
        if c.returncode != 0:
            fails.append(c.stderr.decode(errors="replace").strip()[:2000])
    return counts, fails


CHECKS = [check_values]


# ---------------------------------------------------------------------------
# The oracle's own check.  A generated program must be well defined: its
# printed values are then the same whatever the build, the run or the
# addresses the loader picked.  A reference build of the same source
# (gcc -O0, not instrumented, with the undefined behaviour and address
# sanitizers, which stop the program at the first undefined operation)
# runs once per source; every run of every build must print what it
# printed.  A program that fails that, crashes or runs over 60 s is a
# generator defect: its values are not compared, it is reported apart.
# ---------------------------------------------------------------------------

SANITIZE = ["-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all"]
HEX = re.compile(rb"0x[0-9a-f]+")


def oracle(stdout):
    """The lines a program printed with its addresses made comparable
    between builds and runs: an address in g_arr (the `G` line main prints
    first gives its address) as g_arr+N, any other as 0x?."""
    base = None
    lines = stdout.split(b"\n")
    if lines and lines[0].startswith(b"G\t0x"):
        base = int(lines[0][2:], 16)

    def norm(m):
        v = int(m.group(0), 16)
        if base is not None and 0 <= v - base < gen.G_ARR_BYTES:
            return b"g_arr+%d" % (v - base)
        return b"0x?"
    return [HEX.sub(norm, line) for line in lines]


NUMBER = re.compile(rb"[-+0-9.][-+0-9.eE]*|[^-+0-9.]+")


def same_line(a, b):
    """Whether two printed lines say the same, a number with a fraction or
    an exponent compared as the float it converts to: clang on i386 may
    print a float parameter at the x87 register's precision and another
    build the float itself (check.py compares shown values alike)."""
    if a == b:
        return True
    ta, tb = NUMBER.findall(a), NUMBER.findall(b)
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        if not re.search(rb"[.eE]", x + y):
            return False
        fx, fy = check.as_float(x.decode()), check.as_float(y.decode())
        if fx is None or fx != fy:
            return False
    return True


def same_oracle(lines, ref):
    return len(lines) == len(ref) and all(map(same_line, lines, ref))


def first_difference(lines, ref):
    for k, (a, b) in enumerate(zip(lines, ref)):
        if not same_line(a, b):
            return "line %d: %s instead of %s" % (
                k + 1, a.decode(errors="replace")[:300], b.decode(errors="replace")[:300])
    return "%d lines instead of %d" % (len(lines), len(ref))


def exit_text(rc):
    if rc < 0:
        try:
            return "was killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "was killed by signal %d" % -rc
    return "exited with %d" % rc


REFS = collections.OrderedDict()
REFS_LOCK = threading.Lock()


def reference(text, lang, arch, d):
    """The reference run of source `text` for arch, made once per source
    (every build of a seed shares it): {"lines": its oracle(), "what":
    its description} or {"defect": why the program is no oracle}, or
    None where no compiler builds it."""
    key = (hashlib.sha1(text.encode()).hexdigest(), lang, arch)
    with REFS_LOCK:
        slot = REFS.get(key)
        mine = slot is None
        if mine:
            slot = REFS[key] = [threading.Event(), None]
            while len(REFS) > 32:
                REFS.popitem(last=False)
    if not mine:
        slot[0].wait()
        return slot[1]
    try:
        slot[1] = make_reference(text, lang, arch, d)
    finally:
        slot[0].set()
    return slot[1]


def make_reference(text, lang, arch, d):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "ref.cc" if lang == "c++" else "ref.c")
    with open(src, "w") as fh:
        fh.write(text)
    exe = os.path.join(d, "ref")
    comp = "g++" if lang == "c++" else "gcc"
    m = ["-m32"] if arch == "i386" else []
    # the sanitizers this machine has, the strongest first
    for flags, what in (
            (SANITIZE + ["-fsanitize=address"], "undefined and address sanitizers"),
            (SANITIZE, "undefined sanitizer"), ([], "no sanitizer")):
        r = run([comp] + m + ["-g", "-O0", "-w"] + flags + ["-o", exe, src],
                timeout=300)
        if r.returncode == 0:
            break
    else:
        return None
    what = "%s -O0 with %s" % (comp, what)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    try:
        r = run([exe], env=env, cwd=d, timeout=60)
    except subprocess.TimeoutExpired:
        return {"defect": "%s: took over 60 s" % what}
    if r.returncode != 0:
        err = [l for l in r.stderr.decode(errors="replace").splitlines()
               if "runtime error" in l or "ERROR" in l or "SUMMARY" in l]
        return {"defect": "%s: %s%s" % (what, exit_text(r.returncode),
                                         (": " + err[0].replace(d + os.sep, "")[:300])
                                         if err else "")}
    return {"lines": oracle(r.stdout), "what": what}


GENERATED = collections.OrderedDict()
GENERATED_LOCK = threading.Lock()


def generated(seed, lang, m32):
    """The program gen.py makes of seed (what `gen.py SEED LANG [--m32]`
    prints): the same for every build of an architecture, made once.
    The builds of a seed run together: a few seeds' programs are kept."""
    key = (seed, lang, m32)
    with GENERATED_LOCK:
        if key not in GENERATED:
            GENERATED[key] = gen.Gen(seed, lang == "c++", m32).emit()
            while len(GENERATED) > 8:
                GENERATED.popitem(last=False)
        return GENERATED[key]


def one(seed, build, work, keep):
    """Generates, builds and checks one program; returns (counts, fails)."""
    cc, opt, arch = build.split()
    lang = lang_of(seed)
    if lang == "c++" and arch == "i386":
        return {}, [], []
    d = os.path.join(work, "%d-%s" % (seed, build.replace(" ", "")))
    text = generated(seed, lang, arch == "i386")
    counts, fails, defects = check_source(text, lang, build, d)
    if not fails and not defects and not keep:
        shutil.rmtree(d, ignore_errors=True)
    return counts, fails, defects


def check_source(text, lang, build, d):
    """Builds the program `text` for `build` in directory d and runs every
    check on it; returns (counts, fails, defects): defects say why the
    program is no oracle (its counts and fails are then left out)."""
    cc, opt, arch = build.split()
    os.makedirs(d, exist_ok=True)
    ref = reference(text, lang, arch, os.path.join(d, "ref"))
    if ref is not None and "defect" in ref:
        return {}, [], [ref["defect"]]
    src = os.path.join(d, "prog.cc" if lang == "c++" else "prog.c")
    with open(src, "w") as fh:
        fh.write(text)
    comp = cc
    if lang == "c++":
        comp = "g++" if cc == "gcc" else "clang++"
    elif cc == "clang":
        comp = os.environ.get("CLANG") or "clang"
    lib = os.path.join(LIBDIR, "libctrace.a")
    m = []
    if arch == "i386":
        lib = os.path.join(TOP_BUILD, "tests", "m32", "libctrace.a")
        m = ["-m32"]
    r = run([comp] + m + ["-g", opt, "-w", "-finstrument-functions", "-I" + INCDIR,
             "-o", os.path.join(d, "prog"), src, lib, "-lpthread", "-ldl"],
            timeout=300)
    if r.returncode != 0:
        return {}, ["build failed: " + r.stderr.decode(errors="replace")[:500]], []
    r = run([SYMBOLIZE, "--make-plan", "-o", os.path.join(d, "prog.plan"),
             os.path.join(d, "prog")], timeout=300)
    if r.returncode != 0:
        return {}, ["--make-plan failed: " + r.stderr.decode(errors="replace")[:500]], []
    ctx = {"dir": d, "build": build, "src": src, "ref": ref, "lines": None,
           "defects": []}
    counts, fails = {}, []
    for check in CHECKS:
        c, f = check(ctx)
        for k, v in c.items():
            counts[k] = counts.get(k, 0) + v
        fails += f
    if ctx["defects"]:
        return {}, [], ctx["defects"]
    return counts, fails, []


def read_floor(path):
    floor = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                w = line.split()
                floor[" ".join(w[:3])] = (float(w[3]), float(w[4]))
    return floor


def share(c, mode):
    v = c.get(mode + "_values", 0)
    return c.get(mode + "_recovered", 0) / v if v else 0.0


def table(totals, builds):
    lines = ["| build | values | recovered | unavailable | wrong "
             "| recovered without plan | wrong without plan |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for b in builds:
        c = totals.get(b)
        if not c:
            continue
        lines.append("| %s | %d | %d (%.0f%%) | %d | %d | %d (%.0f%%) | %d |" % (
            b, c.get("plan_values", 0), c.get("plan_recovered", 0),
            100 * share(c, "plan"), c.get("plan_unavailable", 0),
            c.get("plan_wrong", 0), c.get("noplan_recovered", 0),
            100 * share(c, "noplan"), c.get("noplan_wrong", 0)))
    return "\n".join(lines) + "\n"


def main():
    argv = sys.argv[1:]
    seeds, builds, seconds = None, [], 0
    jobs, floor_path, table_path, write_floor = 2, None, None, None
    work = os.path.join(TOP_BUILD, "tests", "work", "fuzz-values")
    keep = reduce_ = False
    name = None
    i = 0
    while i < len(argv):
        a = argv[i]
        val = argv[i + 1] if i + 1 < len(argv) else None
        if a == "--seeds":
            seeds = [int(s) for s in val.split(",")]
        elif a == "--seconds":
            seconds = float(val)
        elif a == "--build":
            builds.append(val)
        elif a == "--jobs":
            jobs = int(val)
        elif a == "--floor":
            floor_path = val
        elif a == "--write-floor":
            write_floor = val
        elif a == "--table":
            table_path = val
        elif a == "--work":
            work = val
        elif a == "--name":
            name = val
        elif a == "--list-builds":
            for b in all_builds():
                print(build_name(b), b)
            return 0
        elif a == "--keep":
            keep = True
            i += 1
            continue
        elif a == "--source":
            return check_file(val, work)
        elif a == "--reduce":
            reduce_ = True
            i += 1
            continue
        else:
            print(__doc__, file=sys.stderr)
            return 2
        i += 2
    builds = builds or all_builds()
    if name and len(builds) != 1:
        print("--name names a single --build", file=sys.stderr)
        return 2
    floor = read_floor(floor_path)
    os.makedirs(work, exist_ok=True)
    totals = {b: {} for b in builds}
    failed = {}
    defects = collections.OrderedDict()   # (seed, why) -> builds
    programs = 0
    start = time.time()
    rng = random.Random()

    def seed_stream():
        if seeds is not None:
            yield from seeds
        else:
            while time.time() - start < seconds:
                yield rng.randint(1, 1 << 31)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        pending = set()
        for seed in seed_stream():
            for b in builds:
                pending.add(ex.submit(lambda s=seed, b=b: (s, b, one(s, b, work, keep))))
            while len(pending) >= max(2 * jobs, len(builds)) or (
                    seeds is None and pending and time.time() - start >= seconds):
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in done:
                    programs += collect(fut.result(), totals, failed, defects)
        for fut in concurrent.futures.as_completed(pending):
            programs += collect(fut.result(), totals, failed, defects)

    passed = nfailed = 0
    for b in builds:
        c = totals[b]
        msgs = failed.get(b, [])
        if b in floor and c:
            for k, mode in enumerate(("plan", "noplan")):
                if share(c, mode) + 1e-9 < floor[b][k]:
                    msgs.append("recovered %s %.3f below the floor %.3f" %
                                (mode, share(c, mode), floor[b][k]))
        counts = " ".join("%s=%d" % (k, v) for k, v in sorted(c.items()))
        if msgs:
            nfailed += 1
            print("FAIL %s %s" % (name or build_name(b), counts))
            for m in msgs:
                print("  " + m.replace("\n", "\n  "))
        else:
            passed += 1
            print("ok %s %s" % (name or build_name(b), counts))
    # Generator defects: programs that are no oracle (undefined behaviour
    # the reference run caught, other values printed by a build or a run,
    # a crash, a run over 60 s), one case of their own.
    bad_seeds = sorted(set(seed for seed, _ in defects))
    if defects:
        nfailed += 1
        print("FAIL generator defects=%d" % len(bad_seeds))
        for (seed, why), bs in defects.items():
            print("  generator defect, seed %d (%s): %s\n    reproduce: %s" % (
                seed, ", ".join(bs), why, reproduce(seed, bs[0])))
    else:
        passed += 1
        print("ok generator defects=0")
    values = sum(c.get(m + "_values", 0) for c in totals.values()
                 for m in ("plan", "noplan", "args", "retval"))
    wrong = sum(c.get(m + "_wrong", 0) for c in totals.values()
                for m in ("plan", "noplan", "args", "retval"))
    print("programs=%d values=%d wrong=%d generator_defects=%d seconds=%.0f" %
          (programs, values, wrong, len(bad_seeds), time.time() - start))
    if write_floor:
        with open(write_floor, "w") as fh:
            fh.write("# The recovered share of the values compared, per build, below which\n"
                     "# tests/values/values.sh fails: with a plan, without one.  Written by\n"
                     "# run.py --write-floor from a run on the make check seeds, two points\n"
                     "# below what that run recovered.\n")
            for b in builds:
                c = totals.get(b)
                if c:
                    fh.write("%s %.2f %.2f\n" % (
                        b, max(0.0, int(share(c, "plan") * 100 - 2) / 100),
                        max(0.0, int(share(c, "noplan") * 100 - 2) / 100)))
    if table_path:
        with open(table_path, "w") as fh:
            fh.write(table(totals, builds))
    if reduce_:
        for b, msgs in failed.items():
            for m in msgs:
                if m.startswith("seed "):
                    seed = int(m.split()[1].rstrip(":"))
                    subprocess.run([sys.executable, os.path.join(HERE, "reduce.py"),
                                    str(seed), b])
    print("%d passed, %d failed" % (passed, nfailed))
    return 1 if nfailed else 0


PRELUDE_INCLUDE = '#include "../values/prelude.h"\n'


def expand_prelude(text):
    """A reduced case with its #include of prelude.h put back as the lines
    themselves: the case is built in another directory."""
    if PRELUDE_INCLUDE not in text:
        return text
    return text.replace(PRELUDE_INCLUDE, gen.read_prelude(), 1)


def check_file(path, work):
    """A reduced regression case (reduce.py): its first line names its
    build.  Prints ok or FAIL with the wrong values."""
    text = expand_prelude(open(path).read())
    build = text.split("build: ", 1)[1].split(" --", 1)[0]
    lang = "c++" if path.endswith(".cc") else "c"
    name = os.path.basename(path)
    cc, opt, arch = build.split()
    if (cc == "clang" and not os.environ.get("CLANG", "clang")) or (
            arch == "i386" and build not in " ".join(all_builds())):
        print("skip %s: %s not available" % (name, build))
        return 77
    counts, fails, defects = check_source(text, lang, build,
                                          os.path.join(work, name.replace(".", "-")))
    if fails or defects:
        print("FAIL %s" % name)
        for f in fails + ["not an oracle: " + x for x in defects]:
            print("  " + f.replace("\n", "\n  "))
        return 1
    print("ok %s %s" % (name, " ".join("%s=%d" % kv for kv in sorted(counts.items()))))
    return 0


def collect(result, totals, failed, defects):
    """Adds one program's result; returns 1 if its values were compared."""
    seed, build, (counts, fails, why) = result
    for w in why:
        defects.setdefault((seed, w), []).append(build)
    if not counts and not fails:
        return 0
    t = totals[build]
    for k, v in counts.items():
        t[k] = t.get(k, 0) + v
    if fails:
        failed.setdefault(build, []).append(
            "seed %d: %s\n  reproduce: %s" % (seed, "\n".join(fails), reproduce(seed, build)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
