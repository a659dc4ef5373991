#!/usr/bin/env python3
"""check.py -- checks of the symbolizer's outputs by the tools that read
them: the JSON and Chrome documents through Python's json, the SVG flame
graph through xml.etree, the folded stacks and the report as text.

    check.py calls FORMAT FILE NAME...   print how many calls of each NAME
                                         FILE holds, on one line
    check.py chrome FILE                 check the Trace Event document
    check.py json FILE                   check the JSON document and its header
    check.py flamegraph SVG FOLDED       check the boxes against folded stacks
    check.py report-vs-tree REPORT TREE  report totals against tree durations
    check.py dot-vs-tree DOT TREE        graph edges against the tree's calls
"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check.py: " + msg)
    sys.exit(1)


def calls_in_report(path, name):
    for line in open(path):
        cols = line.split()
        if cols and cols[-1] == name:
            # Total, Self, Calls, Average, Min, Max: times are "N unit"
            m = re.match(r"\s*(\S+ +\S+)\s+(\S+ +\S+)\s+(\d+)\s", line)
            if not m:
                fail("bad report line: " + line)
            return int(m.group(3))
    return 0


def count_calls(fmt, path, names):
    """How many calls of each of names the file holds (read once)."""
    if fmt == "json":
        calls = json.load(open(path))["calls"]
        return [sum(1 for c in calls if c["function"] == name)
                for name in names]
    if fmt == "chrome":
        events = json.load(open(path))["traceEvents"]
        return [sum(1 for e in events
                    if e.get("name") == name and e["ph"] in ("B", "X"))
                for name in names]
    if fmt == "report":
        return [calls_in_report(path, name) for name in names]
    if fmt == "dot":
        text = open(path).read()
        counts = []
        for name in names:
            m = re.search(r'\[label="' + re.escape(name) + r'\\n(\d+) calls?',
                          text)
            counts.append(int(m.group(1)) if m else 0)
        return counts
    if fmt == "folded":  # --weight=calls: stacks ending in NAME
        counts = dict.fromkeys(names, 0)
        for line in open(path):
            stack, weight = line.rsplit(" ", 1)
            leaf = stack.split(";")[-1]
            if leaf in counts:
                counts[leaf] += int(weight)
        return [counts[name] for name in names]
    if fmt == "flamegraph":  # --weight=calls: boxes named NAME, minus callees
        frames = parse_svg(path)
        return [sum(f["self"] for f in frames if f["name"] == name)
                for name in names]
    fail("unknown format " + fmt)


def check_chrome(path):
    doc = json.load(open(path))
    events = doc["traceEvents"]
    names = {}
    stacks = {}
    last_ts = {}
    flows = {}
    counts = {"B": 0, "E": 0, "X": 0, "M": 0, "i": 0}
    for e in events:
        ph = e["ph"]
        counts[ph] = counts.get(ph, 0) + 1
        key = (e["pid"], e["tid"])
        if ph == "M":
            names.setdefault(e["name"], set()).add(key)
            continue
        if ph in ("s", "f"):
            # a flow arrow (a process made by another): no slice of its
            # thread, in no order; each start has its end, later
            flows.setdefault(e["id"], {})[ph] = e
            continue
        ts = e["ts"]
        if ts < last_ts.get(key, -1e300):
            fail("time goes back in thread %s at %s" % (key, e))
        last_ts[key] = ts
        st = stacks.setdefault(key, [])
        if ph == "B":
            st.append(e)
        elif ph == "E":
            if not st:
                fail("E without B: %s" % e)
            b = st.pop()
            if b["name"] != e.get("name", b["name"]):
                fail("E of %s closes B of %s" % (e.get("name"), b["name"]))
        elif ph == "X":
            if e["dur"] < 0:
                fail("negative duration: %s" % e)
            # nested in its open caller
            if st and e["ts"] < st[-1]["ts"]:
                fail("X before its caller began: %s" % e)
    for key, st in stacks.items():
        if st:
            fail("thread %s: %d B events without E" % (key, len(st)))
    for fid, ends in flows.items():
        if set(ends) != {"s", "f"} or ends["f"]["ts"] < ends["s"]["ts"]:
            fail("flow %s: %s" % (fid, ends))
    threads = {k for k in stacks} | {k for k in last_ts}
    for key in threads:
        if key not in names.get("thread_name", set()):
            fail("thread %s has no thread_name" % (key,))
        if (key[0], key[0]) not in names.get("process_name", set()):
            fail("process %d has no process_name" % key[0])
    print("chrome: %d B, %d E, %d X, %d M events, %d threads" %
          (counts["B"], counts["E"], counts["X"], counts["M"], len(threads)))
    return doc


def check_json(path):
    doc = json.load(open(path))
    for key in ("calls", "lost_events", "header"):
        if key not in doc:
            fail("no %s in the document" % key)
    procs = doc["header"]["processes"]
    for p in procs:
        for key in ("program", "pid", "recorded_at", "threads", "modules",
                    "lost_events"):
            if key not in p:
                fail("process without %s: %s" % (key, p))
        if not p["threads"] or not p["modules"]:
            fail("process without threads or modules")
    # durations add up: a caller lasts at least as long as its callees
    print("json: %d calls, %d processes" % (len(doc["calls"]), len(procs)))
    return doc


TITLE = re.compile(r"^(.*) \((\d+) (ns|calls), ([0-9.]+)%\)$")


def parse_svg(path):
    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ET.parse(path).getroot()
    frames = []
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        title = g.find("svg:title", ns)
        rect = g.find("svg:rect", ns)
        m = TITLE.match(title.text)
        if not m:
            fail("bad title: " + title.text)
        frames.append({"name": m.group(1), "weight": int(m.group(2)),
                       "x": float(rect.get("x")), "y": float(rect.get("y")),
                       "w": float(rect.get("width"))})
    # each box's callees sit on it: one row up, within its width
    rows = sorted({f["y"] for f in frames}, reverse=True)
    for f in frames:
        f["self"] = f["weight"]
    for f in frames:
        if f["y"] == rows[0]:
            f["stack"] = [] if f["name"] == "all" else [f["name"]]
    for i in range(1, len(rows)):
        for f in (f for f in frames if f["y"] == rows[i]):
            parents = [p for p in frames if p["y"] == rows[i - 1] and
                       p["x"] - 0.02 <= f["x"] and
                       f["x"] + f["w"] <= p["x"] + p["w"] + 0.02]
            if len(parents) != 1:
                fail("box %s has %d parents" % (f["name"], len(parents)))
            p = parents[0]
            p["self"] -= f["weight"]
            f["stack"] = p["stack"] + [f["name"]]
    return frames


def check_flamegraph(svg, folded):
    frames = parse_svg(svg)
    total = sum(int(l.rsplit(" ", 1)[1]) for l in open(folded))
    allf = [f for f in frames if f["name"] == "all"]
    if len(allf) != 1 or allf[0]["weight"] != total:
        fail("the root box does not weigh %d" % total)
    width = allf[0]["w"]
    # every folded stack of 1% or more has its box with its exact weight
    incl = {}
    for line in open(folded):
        stack, w = line.rsplit(" ", 1)
        parts = stack.split(";")
        for i in range(1, len(parts) + 1):
            key = ";".join(parts[:i])
            incl[key] = incl.get(key, 0) + int(w)
    boxes = {";".join(f["stack"]): f for f in frames if f["name"] != "all"}
    for key, w in incl.items():
        if w * 100 < total:
            continue
        f = boxes.get(key)
        if not f:
            fail("no box for " + key)
        if f["weight"] != w:
            fail("box %s weighs %d, folded stacks %d" % (key, f["weight"], w))
        if abs(f["w"] - width * w / total) > 0.02:
            fail("box %s is %.2f wide, expected %.2f" %
                 (key, f["w"], width * w / total))
    print("flamegraph: %d boxes agree with %d folded paths" %
          (len(frames), len(incl)))


UNITS = {"us": 1e3, "ms": 1e6, "s": 1e9}


def parse_time(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]


def report_vs_tree(report, tree):
    """The report's calls of each function are its lines in the tree, and
    its total the sum of the durations of its outermost calls (a recursive
    call's time is in its caller's already)."""
    calls = {}
    total = {}
    slack = {}
    stack = []
    for line in list(open(tree))[1:]:
        text = line[22:].rstrip("\n")
        body = text.lstrip(" ")
        m = re.match(r"^(\S+)\(\)(;| \{)$", body)
        if m:
            calls[m.group(1)] = calls.get(m.group(1), 0) + 1
        leaf = re.match(r"^(\S+)\(\);$", body)
        close = re.match(r"^\} /\* (\S+) \*/$", body)
        name = None
        if leaf:
            name = leaf.group(1)
            outer = name not in stack
        elif close:
            name = close.group(1)
            stack.pop()
            outer = name not in stack
        elif m:
            stack.append(m.group(1))
        if name and outer and line[:10].strip():
            t = parse_time(line[:10])
            total[name] = total.get(name, 0) + t
            # the tree rounds each duration to its last digit
            unit = UNITS[line[:10].split()[1]] / 1000
            slack[name] = slack.get(name, 0) + unit / 2
    seen = 0
    for line in open(report):
        if not line.strip() or line.lstrip()[0] in "#T=":
            continue  # titles, headers, rules
        name = line.split()[-1]
        m = re.match(r"\s*(\d+\.\d+ +\S+)\s+(\d+\.\d+ +\S+)\s+(\d+)\s", line)
        if not m:
            fail("bad report line: " + line)
        n = int(m.group(3))
        if n != calls.get(name):
            fail("%s: %d calls in the report, %s in the tree" %
                 (name, n, calls.get(name)))
        t = parse_time(m.group(1))
        unit = UNITS[m.group(1).split()[1]] / 1000
        if abs(t - total.get(name, 0)) > slack.get(name, 0) + unit / 2 + 1:
            fail("%s: total %.0f ns in the report, %.0f in the tree" %
                 (name, t, total.get(name, 0)))
        seen += 1
    if seen != len(calls):
        fail("%d functions in the report, %d in the tree" % (seen, len(calls)))
    print("report agrees with the tree on %d functions" % seen)


def parse_dot(path):
    """{(caller, callee): (calls, ns)} from the graph's edge labels."""
    names = {}
    edges = {}
    for line in open(path):
        m = re.match(r'\s*(n\d+) \[label="([^"\\]*)\\n', line)
        if m:
            names[m.group(1)] = m.group(2)
            continue
        m = re.match(r'\s*(n\d+) -> (n\d+) \[label="(\d+) calls?'
                     r'\\n([^"]+)"', line)
        if m:
            key = (names[m.group(1)], names[m.group(2)])
            edges[key] = (int(m.group(3)), parse_time(m.group(4)))
    return edges


def dot_vs_tree(dot, tree):
    """Each edge's calls are the tree's calls from caller to callee, and
    its time the sum of those calls' durations, counting a call made
    inside another call along the same edge (recursion) once, as the
    report's total does: an edge never takes more time than the run."""
    calls = {}
    total = {}
    slack = {}
    stack = []  # (name, edge)
    for line in list(open(tree))[1:]:
        body = line[22:].rstrip("\n").lstrip(" ")
        entry = re.match(r"^(\S+)\(\) \{$", body)
        leaf = re.match(r"^(\S+)\(\);$", body)
        close = re.match(r"^\} /\* (\S+) \*/$", body)
        if entry or leaf:
            name = (entry or leaf).group(1)
            edge = (stack[-1][0], name) if stack else None
            if edge:
                calls[edge] = calls.get(edge, 0) + 1
            if entry:
                stack.append((name, edge))
                continue
        elif close:
            name, edge = stack.pop()
        else:
            continue
        if edge and edge not in [e for _, e in stack] and line[:10].strip():
            total[edge] = total.get(edge, 0) + parse_time(line[:10])
            slack[edge] = (slack.get(edge, 0) +
                           UNITS[line[:10].split()[1]] / 2000)
    edges = parse_dot(dot)
    if set(edges) != set(calls):
        fail("edges %s in the graph, %s in the tree" %
             (sorted(edges), sorted(calls)))
    for edge, (n, t) in edges.items():
        if n != calls[edge]:
            fail("%s -> %s: %d calls in the graph, %d in the tree" %
                 (edge + (n, calls[edge])))
        want = total.get(edge, 0)
        unit = 1e3 if t < 1e6 else 1e6 if t < 1e9 else 1e9
        if abs(t - want) > slack.get(edge, 0) + unit / 2000 + 1:
            fail("%s -> %s: %.0f ns in the graph, %.0f in the tree" %
                 (edge + (t, want)))
    print("the graph agrees with the tree on %d edges" % len(edges))


def main(argv):
    if argv[1] == "calls":
        print(" ".join(str(n) for n in count_calls(argv[2], argv[3], argv[4:])))
    elif argv[1] == "dot-vs-tree":
        dot_vs_tree(argv[2], argv[3])
    elif argv[1] == "chrome":
        check_chrome(argv[2])
    elif argv[1] == "json":
        check_json(argv[2])
    elif argv[1] == "flamegraph":
        check_flamegraph(argv[2], argv[3])
    elif argv[1] == "report-vs-tree":
        report_vs_tree(argv[2], argv[3])
    else:
        fail("unknown check " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
