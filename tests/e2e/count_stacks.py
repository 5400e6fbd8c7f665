"""count_stacks.py - `count bt` counts hits by stack in the kernel.

paths.c reaches leaf() along three paths and counts its own calls per
path and per argument modulo 3.  wraith counts the same hits by stack
(and by `v % 3`) with no event per hit, and must arrive at the program's
own numbers: in the folded stacks, in the pprof profile (decoded with
protoc, not compared byte for byte), in the NDJSON listing and from the
`stacks` command of --batch.  A map too small for the stacks counts the
rest as not counted, never silently.  Every build of the fixture, gcc and
clang alike."""
import threading
from wraithtest import *

require_root()

ROUNDS = 40
VARIANTS = [v for v in ("O2", "O0", "clang-O2", "clang-O0")
            if os.path.exists(os.path.join(FIXTURES, "paths-" + v))]
SCRIPT = "trace leaf { count bt; }\ntrace leaf { count bt, v % 3; }\n"


def start(args):
    """wraith in script mode, once its probes are attached."""
    p = subprocess.Popen([WRAITH] + [str(a) for a in args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if "tracing" not in line:
        p.kill()
        raise AssertionError("wraith did not start: %r %r" % (line, p.stderr.read()))
    return p


def stop(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


def counted(label, script, extra=()):
    """wraith on a new paths fixture @label while it runs ROUNDS rounds;
    (the program's own counts, wraith's exit status, stdout, stderr)."""
    fx = Paths(label)
    try:
        w = start(["-p", fx.pid, "-s", script] + list(extra))
        own = fx.go(ROUNDS)
        rc, out, err = stop(w)
    finally:
        fx.stop()
    return own, rc, out, err


def path_of(frames):
    """Which path a stack (innermost first) took to leaf: a, b or c."""
    if frames[0] != "leaf":
        return None
    if frames[1:3] == ["mid", "via_b"] and "main" in frames[3:]:
        return "b"
    if frames[1:2] == ["via_a"] and "main" in frames[2:]:
        return "a"
    if frames[1:2] == ["main"]:
        return "c"
    return None


def folded_counts(text, what):
    """{(path, key or None): count} from folded stacks."""
    got, odd = {}, []
    for line in text.splitlines():
        stack, count = line.rsplit(" ", 1)
        elems = stack.split(";")
        key = None
        if elems[0].startswith("v % 3="):
            key = int(elems.pop(0).split("=")[1])
        path = path_of(elems[::-1])
        if path is None:
            odd.append(line)
        got[(path, key)] = got.get((path, key), 0) + int(count)
    check(not odd, "%s: every folded line is a path of the fixture (not: %r)" % (what, odd))
    return got


def expected(own):
    """The fixture's counts, per path and per (path, key): via_a passes
    0, 1, 2; mid 0..4; main 0, 1, once each per round."""
    a, b, c, k0, k1, k2 = own
    r = a // 3
    want = {("a", None): a, ("b", None): b, ("c", None): c}
    for path, args in (("a", range(3)), ("b", range(5)), ("c", range(2))):
        for v in args:
            want[(path, v % 3)] = want.get((path, v % 3), 0) + r
    return want


# ---- pprof ----

def pprof_counts(prof):
    """{(path, key or None): count} from a decoded profile."""
    strings = prof["string_table"]
    funcs = {f["id"][0]: strings[f["name"][0]] for f in prof["function"]}
    locs = {l["id"][0]: [funcs[ln["function_id"][0]] for ln in l["line"]] for l in prof["location"]}
    got = {}
    for s in prof["sample"]:
        frames = [name for loc in s["location_id"] for name in locs[loc]]
        labels = {strings[l["key"][0]]: strings[l.get("str", [0])[0]] for l in s.get("label", [])}
        key = int(labels["v % 3"]) if "v % 3" in labels else None
        k = (path_of(frames), key)
        got[k] = got.get(k, 0) + s["value"][0]
    return got, strings


def one_variant(v):
    label = "paths-" + v
    tmp = tempfile.mkdtemp(prefix="wraith-count.")
    folded, pprof = os.path.join(tmp, "out.folded"), os.path.join(tmp, "out.pb.gz")
    own, rc, out, err = counted(label, SCRIPT, ["--folded", folded, "--pprof", pprof])
    eq(rc, 0, "%s: wraith exits 0 (%s)" % (label, err.strip()[-300:]))
    eq(out, "", "%s: no event per hit, nothing on stdout" % label)
    hits = own[0] + own[1] + own[2]
    check("#1 leaf: %d hits, 0 delivered, 0 filtered, 0 lost; %d stacks counted, 0 not" % (hits, hits)
          in err, "%s: the summary says every hit was counted (%r)" % (label, err[-400:]))
    want = expected(own)
    with open(folded) as f:
        eq(folded_counts(f.read(), label), want, "%s: folded counts equal the program's own" % label)
    got, strings = pprof_counts(decode_pprof(pprof))
    eq(got, want, "%s: pprof counts equal the program's own" % label)
    check("#1 leaf" in strings and "#2 leaf" in strings, "%s: pprof samples name their probe" % label)
    shutil.rmtree(tmp, ignore_errors=True)


for v in VARIANTS:
    one_variant(v)
check(len(VARIANTS) >= 2, "the fixture is built in several variants (%s)" % VARIANTS)

# ---- the listing on stdout, as NDJSON ----
own, rc, out, err = counted("paths-O2", "trace leaf { if v > 0 { count bt; } }",
                            ["--script-output", "json"])
stacks = json_events(out)
eq(rc, 0, "json listing: exit 0")
check(stacks and all(s["type"] == "stack" and s["frames"][0] == "leaf" for s in stacks),
      "json listing: one object per stack, leaf first")
zeros = ROUNDS * 3  # v == 0 once per path per round: filtered out by the condition
eq(sum(s["count"] for s in stacks), sum(own[:3]) - zeros, "json listing: counts add up")
check("%d filtered" % zeros in err, "the summary counts the hits the condition filtered (%r)" % err[-300:])

# ---- bt and count bt in one probe ----
# Two backtrace slots in one probe, one sent and one counted: each event
# shows its backtrace only (the count's item is never shown), complete,
# and every hit is counted as well, under the frames and status its
# backtrace shows.
for v in [x for x in ("O2", "clang-O2") if x in VARIANTS]:
    own, rc, out, err = counted("paths-" + v, "trace leaf { bt; count bt; }",
                                ["--script-output", "json"])
    objs = json_events(out)
    events = [o for o in objs if "items" in o]
    stacks = [o for o in objs if o.get("type") == "stack"]
    eq(rc, 0, "%s bt + count bt: exit 0 (%s)" % (v, err.strip()[-300:]))
    eq(len(events), sum(own[:3]), "%s bt + count bt: an event per hit" % v)
    eq(sorted(set(tuple(i["type"] for i in e["items"]) for e in events)), [("backtrace",)],
       "%s bt + count bt: each event holds its backtrace and nothing of the count" % v)
    check(all(e["items"][0]["status"] == "complete" and
              path_of([f["function"] for f in e["items"][0]["frames"]]) for e in events),
          "%s bt + count bt: every backtrace complete, along a path of the fixture" % v)
    eq(sum(s["count"] for s in stacks), sum(own[:3]), "%s bt + count bt: every hit counted" % v)
    # The same walk, sent and counted: each counted stack is the frames
    # and status the hits' backtraces showed, as often as they showed it.
    sent, kept = {}, {}
    for e in events:
        bt = e["items"][0]
        k = (tuple(f["function"] for f in bt["frames"]), bt["status"], bt["error"])
        sent[k] = sent.get(k, 0) + 1
    for s in stacks:
        k = (tuple(s["frames"]), s["status"], s["error"])
        kept[k] = kept.get(k, 0) + s["count"]
    eq(kept, sent, "%s bt + count bt: each stack counted as often as bt showed it" % v)

# ---- a map too small: the rest is counted as not counted ----
# Each hit a new key: the maps take 16 of them at most, the hash map at
# least three quarters of that (the CPUs' slots take the rest, as the
# CPUs that ran fill them).
own, rc, out, err = counted("paths-O2", "trace leaf { count bt, sink; }", ["--stack-entries", 16])
m = re.search(r"(\d+) stacks counted, (\d+) not \(maps full\)", err)
hits = sum(own[:3])
check(m and int(m.group(1)) + int(m.group(2)) == hits and 12 <= int(m.group(1)) <= 16 + os.cpu_count(),
      "--stack-entries 16: 12 to 16 counted, the rest said not counted (%r)" % (m.group(0) if m else err))
check(re.search(r"counted stacks: \d+ distinct, \d+ hits; %s not counted" % m.group(2), out) if m else False,
      "the listing says how many were not counted")

# ---- the stacks command in --batch ----
fx = Paths("paths-O2")
tmp = tempfile.mkdtemp(prefix="wraith-count.")
batch = os.path.join(tmp, "cmds")
with open(batch, "w") as f:
    # go_done() is called once the rounds are over: its event ends the wait
    f.write("trace leaf { count bt; }\ntrace go_done { print \"rounds done\"; }\nwait events 1\n"
            "stacks 2\nstacks folded %s/b.folded\nstacks clear\nstacks\n" % tmp)
try:
    w = subprocess.Popen([WRAITH, "-p", str(fx.pid), "--batch", batch], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    head = "".join(w.stdout.readline() for _ in range(4))  # each `trace` says where it attached
    own = fx.go(ROUNDS)                                     # while `wait events 1` runs
    out, err = w.communicate(timeout=60)
    out = head + out
finally:
    fx.stop()
eq(w.returncode, 0, "batch: exit 0 (%s)" % err[-300:])
m = re.search(r"counted stacks: (\d+) distinct, %d hits\n" % sum(own[:3]), out)
check(m, "batch: `stacks 2` lists them (%r)" % out[:300])
n = int(m.group(1)) if m else 0
check(n >= 3 and "... and %d more stack" % (n - 2) in out, "batch: `stacks 2` shows two and says how many more")
with open(os.path.join(tmp, "b.folded")) as f:
    eq(folded_counts(f.read(), "batch"), {k: n for k, n in expected(own).items() if k[1] is None},
       "batch: `stacks folded` writes the counts")
check("counted stacks cleared\ncounted stacks: 0 distinct, 0 hits" in out, "batch: `stacks clear` zeroes them")
shutil.rmtree(tmp, ignore_errors=True)

check_no_leftovers("count_stacks")
finish()
