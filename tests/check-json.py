#!/usr/bin/env python3
"""check-json.py -- check ctrace-symbolize's JSON output.

    check-json.py [options] FILE.json

Checks the document's shape and every call's fields, then rebuilds each
thread's call tree from the timestamps, durations and depths alone and
checks that it nests: a call lies within its parent, at the parent's depth
plus one, siblings do not overlap, a thread's calls are listed when they
return and its unfinished ones after them.  A call with no duration listed
before the last call of its thread that returned is one left without an
exit (longjmp, an exception): listed when the symbolizer closed it, it
ends somewhere before its next sibling.

Options:
  --tree OUT          write the rebuilt trees to OUT in the symbolizer's tree
                      format (--no-duration --per-thread), for comparing with
                      an expected tree
  --count NAME=N      exactly N calls of NAME
  --site NAME=SITE    one call of NAME has the call site SITE (file
                      basename:line); given for a NAME, the sites listed
                      must be exactly those of NAME's calls
  --library NAME=END  every call of NAME has a library path ending with END
  --unfinished N      exactly N calls never returned (trace ended first)
  --no-exit N         exactly N calls were left without an exit
  --merged-order      calls of all threads listed in the order they returned,
                      unfinished calls last (the default checks each
                      thread's order only)
Exit status 0 when everything holds, 1 otherwise (with the reasons).
"""

import argparse
import json
import os
import re
import sys

FIELDS = ("function", "library", "address", "call_site", "timestamp",
          "duration", "thread_id", "depth")

# Timestamps and durations are converted from clock ticks separately, so
# their sums may be off by a rounding step.
SLACK_NS = 2

problems = []


def problem(msg):
    problems.append(msg)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_fields(i, call):
    where = "call %d" % i
    if not isinstance(call, dict):
        problem("%s is not an object" % where)
        return False
    missing = [f for f in FIELDS if f not in call]
    if missing:
        problem("%s lacks %s" % (where, ", ".join(missing)))
        return False
    f = call["function"]
    if not isinstance(f, str) or not f:
        problem("%s: bad function %r" % (where, f))
    where = "call %d (%s)" % (i, f)
    lib = call["library"]
    if lib is not None and (not isinstance(lib, str) or
                            not lib.startswith("/")):
        problem("%s: library %r is not an absolute path" % (where, lib))
    addr = call["address"]
    if not isinstance(addr, str) or not re.fullmatch(r"0x[0-9a-f]+", addr):
        problem("%s: bad address %r" % (where, addr))
    site = call["call_site"]
    if site is not None and (not isinstance(site, str) or
                             not re.fullmatch(r".+:[0-9]+", site)):
        problem("%s: bad call_site %r" % (where, site))
    if not is_int(call["timestamp"]) or call["timestamp"] < 0:
        problem("%s: bad timestamp %r" % (where, call["timestamp"]))
        return False
    d = call["duration"]
    if d is not None and (not is_int(d) or d < 0):
        problem("%s: bad duration %r" % (where, d))
        return False
    if not is_int(call["thread_id"]) or call["thread_id"] <= 0:
        problem("%s: bad thread_id %r" % (where, call["thread_id"]))
        return False
    if not is_int(call["depth"]) or call["depth"] < 0:
        problem("%s: bad depth %r" % (where, call["depth"]))
        return False
    return True


def end_of(call):
    if call["duration"] is None:
        return None
    return call["timestamp"] + call["duration"]


def is_unfinished(call):
    return call.get("_unfinished", False)


def check_merged_order(calls):
    """The contract's order across threads: calls listed as they return
    (by time), then every unfinished call."""
    last_end = None
    seen_unfinished = None
    for i, c in enumerate(calls):
        e = end_of(c)
        if is_unfinished(c):
            if seen_unfinished is None:
                seen_unfinished = i
            continue
        if seen_unfinished is not None:
            problem("call %d (%s) is listed after the unfinished call %d" %
                    (i, c["function"], seen_unfinished))
        if e is None:
            continue
        if last_end is not None and e + SLACK_NS < last_end[0]:
            problem("call %d (%s, thread %d) returned at %d, before call "
                    "%d listed before it (thread %d, at %d)" %
                    (i, c["function"], c["thread_id"], e, last_end[1],
                     last_end[2], last_end[0]))
        last_end = (e, i, c["thread_id"])


def build_tree(calls):
    """Returns {thread_id: [root nodes]}; a node is (call, [children])."""
    by_thread = {}
    for i, c in enumerate(calls):
        by_thread.setdefault(c["thread_id"], []).append((i, c))
    roots = {}
    for tid, items in by_thread.items():
        items.sort(key=lambda ic: (ic[1]["timestamp"], ic[1]["depth"],
                                   ic[0]))
        stack = []
        top = []
        for i, c in items:
            name = "call %d (%s, thread %d)" % (i, c["function"], tid)
            while stack and stack[-1][0]["depth"] >= c["depth"]:
                prev = stack.pop()[0]
                e = end_of(prev)
                if e is None and not is_unfinished(prev):
                    pass  # left without an exit: gone before c began
                elif e is None:
                    problem("%s starts after the unfinished %s at depth %d"
                            % (name, prev["function"], prev["depth"]))
                elif e > c["timestamp"] + SLACK_NS:
                    problem("%s overlaps the earlier %s" %
                            (name, prev["function"]))
            node = (c, [])
            if stack:
                parent = stack[-1][0]
                if c["depth"] != parent["depth"] + 1:
                    problem("%s at depth %d inside %s at depth %d" %
                            (name, c["depth"], parent["function"],
                             parent["depth"]))
                pe = end_of(parent)
                ce = end_of(c)
                if not is_unfinished(parent):
                    if is_unfinished(c):
                        problem("%s never returned but its caller %s did" %
                                (name, parent["function"]))
                    elif ce is not None and pe is not None and \
                            ce > pe + SLACK_NS:
                        problem("%s ends after its caller %s" %
                                (name, parent["function"]))
                    # Post-order: a finished caller is listed after it.
                    if i > stack[-1][2]:
                        problem("%s is listed after its caller %s" %
                                (name, parent["function"]))
                stack[-1][1].append(node)
            else:
                if c["depth"] != 0:
                    problem("%s at depth %d has no caller" %
                            (name, c["depth"]))
                top.append(node)
            stack.append((c, node[1], i))
        roots[tid] = top
    return roots


def render(roots, out):
    out.write("# DURATION     TID     FUNCTION\n")

    def walk(node, depth, tid):
        c, children = node
        pre = "%10s [%6s] | %s" % ("", tid, "  " * depth)
        f = c["function"]
        if not children and c["duration"] is not None:
            out.write("%s%s();\n" % (pre, f))
            return
        out.write("%s%s() {\n" % (pre, f))
        for child in children:
            walk(child, depth + 1, tid)
        if is_unfinished(c):
            out.write("%s} /* %s (unfinished) */\n" % (pre, f))
        elif c["duration"] is None:
            out.write("%s} /* %s (no exit recorded) */\n" % (pre, f))
        else:
            out.write("%s} /* %s */\n" % (pre, f))

    for tid in sorted(roots):
        for node in roots[tid]:
            walk(node, 0, tid)


def pairs(values, what):
    result = []
    for v in values or []:
        if "=" not in v:
            sys.exit("check-json.py: bad %s %r" % (what, v))
        result.append(tuple(v.split("=", 1)))
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--tree")
    ap.add_argument("--count", action="append")
    ap.add_argument("--site", action="append")
    ap.add_argument("--library", action="append")
    ap.add_argument("--unfinished", type=int)
    ap.add_argument("--no-exit", type=int)
    ap.add_argument("--merged-order", action="store_true")
    args = ap.parse_args()

    with open(args.file, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            print("%s: not valid JSON: %s" % (args.file, e))
            return 1
    if not isinstance(doc, dict):
        print("%s: the document is not an object" % args.file)
        return 1
    if not isinstance(doc.get("calls"), list):
        print("%s: no \"calls\" array" % args.file)
        return 1
    lost = doc.get("lost_events")
    if not is_int(lost) or lost < 0:
        problem("bad lost_events %r" % (lost,))

    calls = doc["calls"]
    good = [c for i, c in enumerate(calls) if check_fields(i, c)]
    if len(good) == len(calls):
        # A thread's calls in the order they returned, its unfinished
        # ones after them.
        last_returned = {}
        for i, c in enumerate(calls):
            if c["duration"] is not None:
                last_returned[c["thread_id"]] = i
        last_end = {}
        for i, c in enumerate(calls):
            tid = c["thread_id"]
            e = end_of(c)
            if e is None:
                c["_unfinished"] = i > last_returned.get(tid, -1)
                continue
            if tid in last_end and e + SLACK_NS < last_end[tid]:
                problem("call %d (%s) returned before the call of its "
                        "thread listed before it" % (i, c["function"]))
            last_end[tid] = e
        if args.merged_order:
            check_merged_order(calls)
        roots = build_tree(calls)
        if args.tree:
            with open(args.tree, "w", encoding="utf-8") as out:
                render(roots, out)

    for name, n in pairs(args.count, "--count"):
        got = sum(1 for c in good if c["function"] == name)
        if got != int(n):
            problem("%d calls of %s, expected %s" % (got, name, n))
    sites = {}
    for name, site in pairs(args.site, "--site"):
        sites.setdefault(name, []).append(site)
    for name, want in sites.items():
        got = []
        for c in good:
            if c["function"] == name:
                s = c["call_site"]
                got.append(os.path.basename(s) if s else "null")
        if sorted(got) != sorted(want):
            problem("call sites of %s: %s, expected %s" %
                    (name, sorted(got), sorted(want)))
    for name, end in pairs(args.library, "--library"):
        libs = set(c["library"] for c in good if c["function"] == name)
        if not libs:
            problem("no call of %s" % name)
        for lib in libs:
            if not lib or not lib.endswith(end):
                problem("%s is in %r, expected ...%s" % (name, lib, end))
    if args.unfinished is not None:
        got = sum(1 for c in good if is_unfinished(c))
        if got != args.unfinished:
            problem("%d unfinished calls, expected %d" %
                    (got, args.unfinished))
    if args.no_exit is not None:
        got = sum(1 for c in good
                  if c["duration"] is None and not is_unfinished(c))
        if got != args.no_exit:
            problem("%d calls without an exit, expected %d" %
                    (got, args.no_exit))

    for p in problems[:50]:
        print("%s: %s" % (args.file, p))
    if len(problems) > 50:
        print("%s: ... and %d more problems" % (args.file, len(problems) - 50))
    print("%s: %d calls, %d problems" % (args.file, len(calls), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
