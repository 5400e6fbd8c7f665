"""clones.py - parameters of GCC's clones (issue 23).  In clones.c GCC
-O2 makes scaled.constprop.0, whose tag is passed in no register: its
location is DW_OP_GNU_parameter_ref, naming tag's DIE, and main's two
call sites give 3 and 4 for that DIE (DW_AT_call_parameter).  gdb reads
it as an entry value keyed by the DIE: `print tag` is what the call
that made the frame passed, and its bt shows `scaled (k=k@entry=2,
tag=3, factor=7)` (no @entry: gdb finds none for a parameter passed in
no register).  wraith printed tag <optimized out>.  Now:
- at scaled's entry, `print tag` and bt args' tag are what the call
  that made the frame passed: 3 from TAG3-LINE, 4 from TAG4-LINE (the
  fixture's own constants), as gdb prints at each; the frame's text
  equals gdb's bt frame (k's value aside: gdb stops at a later call);
- through it: at cl_leaf, scaled's frame 1 has the tag of the call in
  main's frame 2, as gdb's bt shows there;
- check.part.0 (partial inlining; parameters in registers): bt args at
  its entry equals gdb's frame.
clang -O2 makes no clone and drops the unused tag: both print
<optimized out> for it, and the frames are gdb's.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["clones-O2", "clones-clang-O2"]
TAG_LINES = {marker_line("clones.c", "/* TAG3-LINE"): "3", marker_line("clones.c", "/* TAG4-LINE"): "4"}


def args_text(args):
    """bt args' arguments of a frame as gdb writes them."""
    return ", ".join("%s=%s%s" % (a["name"], "%s@entry=" % a["name"] if a.get("entry") else "", a["value"])
                     for a in args)


def wraith_events(pid, script, n):
    res = run(["-p", pid, "-s", script, "--max-events", n, "--script-output", "json", "-q"])
    out = []
    for ev in json_events(res.stdout):
        prints = [it["text"].split(" = ", 1)[-1] for it in ev["items"] if it["type"] == "print"]
        frames = [f for it in ev["items"] if it["type"] == "backtrace" for f in it["frames"]]
        out.append((prints, frames))
    return out, res


def gdb_run(pid, cmds):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid)]
    for c in cmds + ["detach"]:
        argv += ["-ex", c]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout


def gdb_frames(out):
    """[(function, args text, line)] of each `#N` line of gdb's output."""
    return [(m.group(1), m.group(2), int(m.group(3)))
            for m in re.finditer(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \((.*)\) at \S+:(\d+)$", out, re.M)]


def norm_k(text):
    return re.sub(r"\bk=(k@entry=)?-?\d+", r"k=\1N", text)


for b in BUILDS:
    gcc = "clang" not in b
    want = (lambda line: TAG_LINES.get(line)) if gcc else (lambda line: "<optimized out>")
    fx = Fixture(b, [2000])
    at_entry, res = wraith_events(fx.pid, "trace scaled { print tag; print factor; bt args; }", 4)
    through, res_through = wraith_events(fx.pid, "trace cl_leaf { bt args; }", 60)
    part, res_part = (wraith_events(fx.pid, "trace check.part.0 { bt args; }", 1) if gcc else ([], None))
    # gdb: two hits of scaled (one per call site), then the cl_leaf scaled calls
    g_entry = gdb_run(fx.pid, ["break scaled", "continue", "print tag", "bt 2", "continue", "print tag", "bt 2",
                               "break cl_leaf", "continue", "bt 3"])
    g_part = gdb_run(fx.pid, ["break check.part.0", "continue", "bt 1"]) if gcc else ""
    fx.stop()
    check(res.returncode == 0 and len(at_entry) == 4, "%s: scaled traced (%s)" % (b, res.stderr[-300:]))
    if gcc:
        syms = subprocess.run(["nm", fixture(b)], capture_output=True, text=True).stdout
        locs = subprocess.run(["readelf", "--debug-dump=loc", fixture(b)], capture_output=True, text=True).stdout
        check("scaled.constprop.0" in syms and "DW_OP_GNU_parameter_ref" in locs,
              "%s: GCC made scaled.constprop.0, its tag a DW_OP_GNU_parameter_ref" % b)
    # what the call that made each frame passed: the fixture's constants
    for prints, frames in at_entry:
        line = frames[1]["line"] if len(frames) > 1 else None
        tag = dict((a["name"], a["value"]) for a in frames[0].get("args", [])).get("tag") if frames else None
        eq((prints[:1], tag), ([want(line)], want(line)),
           "%s: print tag and bt args' tag at scaled's entry are what main's line %s passed" % (b, line))
    # gdb at the same breakpoint: tag by main's line, and the frame's text
    g = gdb_frames(g_entry)
    g_tags = re.findall(r"^\$\d+ = (.*)$", g_entry, re.M)
    g_scaled = [(a, l2) for (f, a, _), (f2, _, l2) in zip(g, g[1:]) if f == "scaled" and f2 == "main"]
    check(len(g_tags) == 2 and len(g_scaled) >= 2, "%s: gdb stopped at scaled twice (%s)" % (b, g_entry[-600:]))
    for (text, line), tag in zip(g_scaled, g_tags):
        eq(tag, want(line), "%s: gdb's print tag is what main's line %s passed" % (b, line))
        mine = [args_text(fr[0].get("args", [])) for _, fr in at_entry if len(fr) > 1 and fr[1]["line"] == line]
        check(mine, "%s: an event of scaled called from line %s" % (b, line))
        if mine:
            eq(norm_k(mine[0]), norm_k(text), "%s: bt args at scaled's entry (from line %s) as gdb's bt" % (b, line))
    # through the clone: frame 1 scaled, frame 2 main
    seen = [(args_text(fr[1].get("args", [])), fr[2]["line"]) for _, fr in through
            if len(fr) > 2 and fr[1]["function"] == "scaled"]
    check(res_through.returncode == 0 and seen, "%s: cl_leaf called from scaled (%s)" % (b, res_through.stderr[-300:]))
    for text, line in seen:
        check(("tag=%s" % want(line)) in text,
              "%s: scaled's frame shows the tag main's line %s passed (%s)" % (b, line, text))
    g_through = [(a, l3) for (f1, _, _), (f2, a, _), (f3, _, l3) in zip(g, g[1:], g[2:])
                 if f1 == "cl_leaf" and f2 == "scaled"]
    check(g_through, "%s: gdb's bt at cl_leaf through scaled (%s)" % (b, g_entry[-400:]))
    for text, line in g_through:
        check(("tag=%s" % want(line)) in text, "%s: gdb's scaled frame has that tag too (%s)" % (b, text))
        mine = [t for t, l in seen if l == line]
        if mine:  # k: gdb's hit is another call, and clobbered-register rules differ
            eq(re.sub(r"\bk=[^,]*", "k=?", mine[0]), re.sub(r"\bk=[^,]*", "k=?", text),
               "%s: scaled's frame through cl_leaf as gdb's bt" % b)
    if gcc:  # check.part.0 at its entry
        gp = [a for f, a, _ in gdb_frames(g_part) if f == "check"]
        mp = [args_text(fr[0].get("args", [])) for _, fr in part if fr]
        check(res_part.returncode == 0 and gp and mp, "%s: check.part.0 traced by both (%s)" % (b, g_part[-300:]))
        if gp and mp:
            norm = lambda t: re.sub(r"(mode|k)=(\1@entry=)?-?\d+", r"\1=\2N", t)
            eq(norm(mp[0]), norm(gp[0]), "%s: bt args at check.part.0's entry as gdb's bt" % b)
check_no_leftovers("after GCC's clones")
finish()
