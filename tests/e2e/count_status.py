"""count_status.py - stacks `count bt` counted keep how their walk ended,
and the totals of a run agree.

A walk cut short by --backtrace-depth is `truncated`: its stacks are
counted apart from whole ones (the status is part of what identifies a
stack in the kernel) and every output says so - the folded stacks and the
pprof profile with an outermost frame `[stopped: truncated]`, the NDJSON
listing with its status fields, the `stacks` listing with that frame, and
`diag` counts them by status.  And on a target that never stops calling,
the end-of-run summary's count and the folded, pprof and NDJSON totals are
the same number: the counts are read once the probes are detached."""
from wraithtest import *

require_root()

MARK = "[stopped: truncated]"


def folded_total(text):
    return sum(int(l.rsplit(" ", 1)[1]) for l in text.splitlines() if l.strip())


def pprof_stacks(prof):
    """[(frames innermost first, count)] of a decoded profile."""
    strings = prof["string_table"]
    funcs = {f["id"][0]: strings[f["name"][0]] for f in prof["function"]}
    locs = {l["id"][0]: [funcs[ln["function_id"][0]] for ln in l["line"]] for l in prof["location"]}
    return [([n for loc in s["location_id"] for n in locs[loc]], s["value"][0]) for s in prof["sample"]]


def summary_count(err):
    m = re.search(r"; (\d+) stacks counted, 0 not \(maps full\)", err)
    return int(m.group(1)) if m else None


fx = Fixture("inline-O2", [0])  # calls leaf as fast as it can
tmp = tempfile.mkdtemp(prefix="wraith-status.")
for depth in (128, 2):
    folded, pprof = os.path.join(tmp, "s.folded"), os.path.join(tmp, "s.pb.gz")
    res = run(["-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1.5, "--backtrace-depth", depth,
               "--folded", folded, "--pprof", pprof])
    total = summary_count(res.stderr)
    check(res.returncode == 0 and total, "depth %d: the run counts stacks (%r)" % (depth, res.stderr[-300:]))
    with open(folded) as f:
        text = f.read()
    eq(folded_total(text), total, "depth %d: the folded stacks add up to the summary's count" % depth)
    stacks = pprof_stacks(decode_pprof(pprof))
    eq(sum(n for _, n in stacks), total, "depth %d: the pprof samples add up to it too" % depth)
    lines = text.splitlines()
    if depth == 2:
        check(lines and all(l.startswith(MARK + ";") for l in lines),
              "depth 2: each folded stack starts with %s (%r)" % (MARK, lines[:2]))
        check(stacks and all(fr[-1] == MARK and fr[0] == "leaf" for fr, _ in stacks),
              "depth 2: each pprof sample's outermost location is %s" % MARK)
    else:
        check(lines and not any("[stopped" in l for l in lines) and all(l.startswith("_start;") for l in lines),
              "whole stacks have no such frame (%r)" % lines[:2])

    res = run(["-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1, "--backtrace-depth", depth,
               "--script-output", "json"])
    objs = json_events(res.stdout)
    eq(sum(o["count"] for o in objs), summary_count(res.stderr),
       "depth %d: the NDJSON counts add up to the summary's count" % depth)
    want = ("complete", 0, "none", 0) if depth == 128 else ("truncated", 1, "none", 0)
    check(objs and all((o["status"], o["status_code"], o["error"], o["error_code"]) == want for o in objs),
          "depth %d: each NDJSON stack says how its walk ended: %s" % (depth, want[0]))
    check(objs and all(MARK not in o["frames"] for o in objs), "depth %d: the frames are frames only" % depth)

# the stacks listing and diag in --batch
batch = os.path.join(tmp, "cmds")
with open(batch, "w") as f:
    f.write("set backtrace-depth 2\ntrace leaf { count bt; }\nwait 1\nstacks\ndiag\n")
res = run(["-p", fx.pid, "--batch", batch])
fx.stop()
check(res.returncode == 0 and re.search(r"\n  outer\n  %s\n" % re.escape(MARK), res.stdout),
      "batch: `stacks` shows where each stack stopped (%r)" % res.stdout[-600:])
m = re.search(r"probe 1 \(leaf\): 0 events, 0 backtraces, (\d+) stacks counted \(count bt\)\n"
              r"  by status:\n    complete +0 .*\n    truncated +(\d+) ", res.stdout)
check(m and m.group(1) == m.group(2) and int(m.group(1)) > 0,
      "batch: `diag` counts the counted stacks by status (%r)" % res.stdout[-600:])
shutil.rmtree(tmp, ignore_errors=True)
check_no_leftovers("after counting stacks by status")
finish()
