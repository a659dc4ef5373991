"""perfetto_check.py -- ctrace's Perfetto output against its JSON output.

Usage: perfetto_check.py [--list] SCHEMA_DIR TRACE.pftrace CALLS.json
                         [SOURCE.c]

Decodes TRACE with protoc: --decode_raw (it is protobuf) and --decode with
SCHEMA_DIR/perfetto.proto, the published field numbers (no field may be
unknown to it).  Then reads it as Perfetto's trace processor does: the
track descriptors, each sequence's incremental state (cleared first,
clock 64 incremental nanoseconds, the defaults' track), interned names,
source locations and annotation names, the timestamps as deltas, slices
from their BEGIN and END.  Every slice must be a call of the JSON
document of the same trace, and every call a slice: function, thread,
start, duration, depth, arguments and return value.  With SOURCE, each
source location must name the line of SOURCE (or the one after it) where
its function is defined.  Prints what it checked, or with --list the
slices of each sequence in the order they began, indented by depth, with
their annotations: "fact(n=3) = 6"; exits 1 on a mismatch.
"""
import codecs
import json
import os
import subprocess
import sys


def fail(msg):
    print("perfetto_check: " + msg, file=sys.stderr)
    sys.exit(1)


def parse_text(text):
    """protoc's text format into nested lists of (key, value)."""
    root = []
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith(" {"):
            msg = []
            stack[-1].append((line[:-2], msg))
            stack.append(msg)
            continue
        key, _, value = line.partition(": ")
        if key[0].isdigit():
            fail("field %s is not in the schema: %s" % (key, line))
        if value.startswith('"'):
            raw = codecs.escape_decode(value[1:-1].encode("latin-1"))[0]
            value = raw.decode("utf-8")  # strings are UTF-8, always
        stack[-1].append((key, value))
    if len(stack) != 1:
        fail("unbalanced protoc output")
    return root


def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default


def get_all(msg, key):
    return [v for k, v in msg if k == key]


def main():
    argv = sys.argv[1:]
    listing = argv[0] == "--list"
    if listing:
        argv = argv[1:]
    schema_dir, trace, calls_json = argv[:3]
    source = argv[3] if len(argv) > 3 else None
    data = open(trace, "rb").read()
    raw = subprocess.run(["protoc", "--decode_raw"], input=data,
                         capture_output=True)
    if raw.returncode != 0:
        fail("protoc --decode_raw: " + raw.stderr.decode())
    typed = subprocess.run(["protoc", "-I", schema_dir,
                            "--decode=perfetto.protos.Trace",
                            os.path.join(schema_dir, "perfetto.proto")],
                           input=data, capture_output=True)
    if typed.returncode != 0:
        fail("protoc --decode: " + typed.stderr.decode())
    packets = get_all(parse_text(typed.stdout.decode()), "packet")

    tracks = {}      # uuid -> (pid, tid or None, name)
    seqs = {}        # sequence id -> its state
    slices = []      # (tid, start, duration, depth, name, args, retval)
    instants = []
    n_events = 0
    for p in packets:
        seq = int(get(p, "trusted_packet_sequence_id", "0"))
        if seq == 0:
            fail("a packet without a sequence")
        flags = int(get(p, "sequence_flags", "0"))
        td = get(p, "track_descriptor")
        if td is not None:
            uuid = int(get(td, "uuid"))
            if uuid in tracks:
                fail("track %d described twice" % uuid)
            proc, thr = get(td, "process"), get(td, "thread")
            if proc is not None:
                tracks[uuid] = (int(get(proc, "pid")), None,
                                get(proc, "process_name"))
            elif thr is not None:
                parent = int(get(td, "parent_uuid"))
                if parent not in tracks:
                    fail("thread track before its process")
                tracks[uuid] = (int(get(thr, "pid")), int(get(thr, "tid")),
                                get(thr, "thread_name"))
            continue
        if flags & 1:
            # a new sequence: its state is cleared and defined here
            if seq in seqs:
                fail("sequence %d cleared twice" % seq)
            clocks = get_all(get(p, "clock_snapshot"), "clocks")
            inc = [c for c in clocks if get(c, "clock_id") == "64"]
            if len(inc) != 1 or get(inc[0], "is_incremental") != "true":
                fail("sequence %d: no incremental clock 64" % seq)
            d = get(p, "trace_packet_defaults")
            if get(d, "timestamp_clock_id") != "64":
                fail("sequence %d: timestamps not on clock 64" % seq)
            track = int(get(get(d, "track_event_defaults"), "track_uuid"))
            if track not in tracks or tracks[track][1] is None:
                fail("sequence %d: default track is no thread" % seq)
            seqs[seq] = {"time": int(get(inc[0], "timestamp")),
                         "track": track, "names": {}, "locs": {},
                         "anames": {}, "stack": []}
            continue
        if seq not in seqs:
            fail("sequence %d used before its state is cleared" % seq)
        if not flags & 2:
            fail("an event packet without SEQ_NEEDS_INCREMENTAL_STATE")
        st = seqs[seq]
        st["time"] += int(get(p, "timestamp", "0"))
        interned = get(p, "interned_data", [])
        for key, table, field in (("event_names", "names", "name"),
                                  ("debug_annotation_names", "anames",
                                   "name"),
                                  ("source_locations", "locs", None)):
            for e in get_all(interned, key):
                iid = int(get(e, "iid"))
                if iid in st[table]:
                    fail("iid %d of %s sent twice" % (iid, key))
                st[table][iid] = get(e, field) if field else e
        ev = get(p, "track_event")
        if ev is None:
            fail("a packet with neither descriptor nor event")
        n_events += 1
        kind = get(ev, "type")
        ann = {}
        for a in get_all(ev, "debug_annotations"):
            ann[st["anames"][int(get(a, "name_iid"))]] = \
                get(a, "string_value")
        if kind == "TYPE_SLICE_BEGIN":
            name = st["names"][int(get(ev, "name_iid"))]
            loc = get(ev, "source_location_iid")
            if loc is not None:
                loc = st["locs"][int(loc)]
                if get(loc, "function_name") != name:
                    fail("%s: location of %s" % (name,
                         get(loc, "function_name")))
            st["stack"].append((name, st["time"], ann, loc, n_events))
        elif kind == "TYPE_SLICE_END":
            if not st["stack"]:
                fail("an end without a begin")
            name, start, args, loc, order = st["stack"].pop()
            tid = tracks[st["track"]][1]
            slices.append((tid, start, st["time"] - start,
                           len(st["stack"]), name, args,
                           ann.get("return"), ann.get("ctrace"), loc,
                           (seq, order)))
        elif kind == "TYPE_INSTANT":
            instants.append(ev)
        else:
            fail("event of type " + str(kind))

    doc = json.load(open(calls_json))
    calls = []
    for c in doc["calls"]:
        args = {}
        for a in c.get("args") or []:
            args[a["name"]] = a.get("value", "? (%s)" % a.get("unavailable"))
        ret = c.get("retval")
        calls.append((c["thread_id"], c["timestamp"], c["duration"],
                      c["depth"], c["function"], args,
                      ret.get("value") if ret else None))
    got = sorted(s[:7] for s in slices if s[7] is None)
    want = sorted(c for c in calls if c[2] is not None)
    if len(got) != len(want):
        fail("%d slices, %d calls in the JSON" % (len(got), len(want)))
    for g, w in zip(got, want):
        # times: both are the trace's ticks in ns, a timestamp truncated,
        # a JSON duration rounded: an end may differ by 1 ns
        if g[:2] + g[3:] != w[:2] + w[3:] or abs(g[2] - w[2]) > 1:
            fail("slice %r\n  call %r" % (g, w))
    lines = open(source).read().split("\n") if source else None
    n_locs = 0
    for s in slices:
        loc = s[8]
        if lines is None or loc is None:
            continue
        if not get(loc, "file_name").endswith(os.path.basename(source)):
            continue
        n = int(get(loc, "line_number"))
        if not any(s[4] + "(" in lines[i - 1] for i in (n, n - 1) if i > 0):
            fail("%s: line %d is not where it is defined" % (s[4], n))
        n_locs += 1
    pids = set(t[0] for t in tracks.values())
    want_pids = set(p["pid"] for p in doc["header"]["processes"])
    if pids != want_pids:
        fail("processes %r, JSON %r" % (sorted(pids), sorted(want_pids)))
    if listing:
        for s in sorted(slices, key=lambda s: s[9]):
            text = "  " * s[3] + "%s(%s)" % (s[4], ", ".join(
                "%s=%s" % kv for kv in s[5].items()))
            if s[6] is not None:
                text += " = " + s[6]
            print(text)
        return
    print("%d events, %d slices equal to the JSON calls, %d threads, "
          "%d located" % (n_events, len(got), len(seqs), n_locs))


main()
