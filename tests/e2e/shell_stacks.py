"""shell_stacks.py - the shell's live top-stacks view of `count bt`.

tmux runs the real `wraith -p PID` against paths.c, which reaches leaf()
along three call paths and counts its own calls per path and argument.
`trace leaf { count bt, v % 3; }` counts in the kernel; F4 opens the view,
whose counts must equal the program's own per path and key, grow at the
next reading (about a second later) while the view stays open, sort by
function names with `s` and merge the stacks of one path (its keys) with
`c`.  `stacks live` opens it too.  Every build of the fixture that
exists, gcc and clang alike; no BPF program or uprobe may be left.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

from wraithtest import *

require_root()
if not shutil.which("tmux"):
    fail("tmux is needed for this test and is not installed")
    finish()

SOCKET = tmux_socket("stacks")
STATE = tempfile.mkdtemp(prefix="wraith-stacks-")
VARIANTS = [v for v in ("O2", "clang-O2")
            if os.path.exists(os.path.join(FIXTURES, "paths-" + v))]


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET] + list(args), capture_output=True, text=True,
                          timeout=30)


def screen(name):
    r = tmux("capture-pane", "-p", "-t", name)
    return r.stdout if r.returncode == 0 else "<tmux: %s>" % r.stderr.strip()


def wait_for(name, what, test, timeout=30):
    """The screen once `test` holds on it and it has stayed the same for
    0.2 s: tmux may show a redraw half written (the title of a new reading
    over the rows of the last), and the view redraws at most once a second."""
    deadline = time.time() + timeout
    scr = screen(name)
    while time.time() < deadline:
        if test(scr):
            time.sleep(0.2)
            again = screen(name)
            if again == scr:
                check(True, "%s: %s" % (name, what))
                return scr
            scr = again
            continue
        time.sleep(0.1)
        scr = screen(name)
    fail("%s: %s (timed out; the screen was:\n%s)" % (name, what, scr))
    return scr


def wait_text(name, what, pattern, timeout=30):
    rx = re.compile(pattern, re.M)
    return wait_for(name, what, lambda s: rx.search(s), timeout)


def command(name, text):
    tmux("send-keys", "-t", name, "-l", text)
    tmux("send-keys", "-t", name, "Enter")


HEAD = re.compile(r"^ +(\d+) +([\d.]+)% +([a-z?-]+) +(#\d+ \S+|several probes)(?: +v % 3=(\d+))?"
                  r"(?: +\((\d+) stacks\))?\s*$")
FRAME = re.compile(r"^ {20,}(\S.*?)\s*$")


def view(scr):
    """The view's title and its rows: [count, key, merged, [frames], status]."""
    lines = scr.split("\n")
    title = next((l for l in lines if l.startswith(" top stacks:")), "")
    rows = []
    for l in lines:
        m = HEAD.match(l)
        if m:
            rows.append([int(m.group(1)), int(m.group(5)) if m.group(5) else None,
                         int(m.group(6) or 1), [], m.group(3)])
        elif rows and FRAME.match(l):
            rows[-1][3].append(FRAME.match(l).group(1))
    return title, rows


def path_of(frames):
    """Which path a stack (innermost first) took to leaf: a, b or c."""
    if frames[:1] != ["leaf"]:
        return None
    if frames[1:3] == ["mid", "via_b"]:
        return "b"
    return {"via_a": "a", "main": "c"}.get(frames[1] if len(frames) > 1 else "")


def by_path_key(rows):
    got = {}
    for count, key, _, frames, _ in rows:
        k = (path_of(frames), key)
        got[k] = got.get(k, 0) + count
    return got


def expected(own):
    """Per (path, key): via_a passes 0, 1, 2; mid 0..4; main 0, 1."""
    r = own[0] // 3
    want = {}
    for path, args in (("a", range(3)), ("b", range(5)), ("c", range(2))):
        for v in args:
            want[(path, v % 3)] = want.get((path, v % 3), 0) + r
    return want


def hits_in(title):
    m = re.search(r"top stacks: \d+ distinct, (\d+) hits", title)
    return int(m.group(1)) if m else -1


def reading(title):
    m = re.search(r"counts read (\d+) times?, every 1 s", title)
    return int(m.group(1)) if m else -1


def one_variant(v):
    label = "paths-" + v
    fx = Paths(label)
    name = "stacks-" + v
    status = os.path.join(STATE, name + ".status")
    cmd = ("env XDG_STATE_HOME=%s %s -p %d; echo \"exit=$?\" > %s; sleep 60"
           % (STATE, WRAITH, fx.pid, status))
    # a server whose last session just ended may refuse a new one on its way out
    for _ in range(10):
        if tmux("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "120", "-y", "90", cmd).returncode == 0:
            break
        time.sleep(0.5)
    try:
        wait_text(name, "the shell starts", r"tracing process %d" % fx.pid, timeout=90)
        command(name, "trace leaf { count bt, v % 3; }")
        wait_text(name, "the counting probe is on", r"probes 1/1 on")
        own = fx.go(20)
        hits = sum(own[:3])
        tmux("send-keys", "-t", name, "F4")
        scr = wait_text(name, "F4 opens the view with every hit counted",
                        r"^ top stacks: \d+ distinct, %d hits .*by count" % hits)
        if not re.search(r"^ top stacks: \d+ distinct, %d hits" % hits, scr, re.M):
            tmux("send-keys", "-t", name, "Escape")
            command(name, "info probes")
            time.sleep(1)
            print("after the failure, `info probes` (fixture's counts %r):\n%s" % (own, screen(name)))
        title, rows = view(scr)
        eq(by_path_key(rows), expected(own), "%s: counts per path and key equal the program's own"
           % label)
        check(rows and rows[0][0] == max(r[0] for r in rows), "%s: most counted first" % label)
        check(rows and all(r[4] == "complete" for r in rows),
              "%s: each row says how its walk ended: complete" % label)
        check(all(abs(float(m) - 100.0 * int(c) / hits) < 0.06 for c, m in
                  re.findall(r"^ +(\d+) +([\d.]+)% ", scr, re.M)), "%s: shares of the total" % label)
        first, top_before = reading(title), rows[0][0]

        own = fx.go(20)
        hits = sum(own[:3])
        scr = wait_text(name, "the next reading has the new hits, the view still open",
                        r"^ top stacks: \d+ distinct, %d hits" % hits, timeout=10)
        title, rows = view(scr)
        check(reading(title) > first, "%s: read again (%d after %d)" % (label, reading(title), first))
        check(rows[0][0] > top_before, "%s: the top stack's count grew (%d after %d)"
              % (label, rows[0][0], top_before))
        eq(by_path_key(rows), expected(own), "%s: and still equals the program's own" % label)
        by_count = ["\n".join(r[3]) for r in rows]

        tmux("send-keys", "-t", name, "s")
        scr = wait_text(name, "s sorts by function names", r"^ top stacks: .*by name")
        by_name = ["\n".join(r[3]) for r in view(scr)[1]]
        eq(by_name, sorted(by_count), "%s: by function names, innermost first" % label)

        tmux("send-keys", "-t", name, "c")
        scr = wait_text(name, "c collapses by function", r"^ top stacks: .*by name, collapsed")
        title, rows = view(scr)
        got = {path_of(r[3]): r[0] for r in rows}
        eq(got, {"a": own[0], "b": own[1], "c": own[2]},
           "%s: one row per path, its keys' counts added up" % label)
        check(all(r[2] >= {"a": 3, "b": 3, "c": 2}.get(path_of(r[3]), 99) for r in rows),
              "%s: each row says how many stacks it merged (one per key at least): %r"
              % (label, [(path_of(r[3]), r[2]) for r in rows]))
        eq([path_of(r[3]) for r in rows], ["c", "b", "a"], "%s: by name: leaf;main first" % label)
        tmux("send-keys", "-t", name, "s")
        scr = wait_text(name, "s again: by count, still collapsed", r"by count, collapsed")
        eq([path_of(r[3]) for r in view(scr)[1]], ["b", "a", "c"],
           "%s: by count: 5, 3 and 2 calls a round" % label)

        tmux("send-keys", "-t", name, "Escape")
        wait_text(name, "Esc closes the view", r"^ output ")
        command(name, "stacks live")
        wait_text(name, "`stacks live` opens it too", r"^ top stacks: \d+ distinct")
        tmux("send-keys", "-t", name, "F4")
        wait_text(name, "F4 closes it", r"^ output ")
        command(name, "quit")
        deadline = time.time() + 15
        while not os.path.exists(status) and time.time() < deadline:
            time.sleep(0.1)
        eq(open(status).read().strip() if os.path.exists(status) else None, "exit=0",
           "%s: quit exits 0" % label)
    finally:
        tmux("kill-session", "-t", name)
        fx.stop()
    check_no_leftovers("shell_stacks " + label)


for v in VARIANTS:
    one_variant(v)
check(len(VARIANTS) == 2, "the fixture is built with gcc and clang (%s)" % VARIANTS)
shutil.rmtree(STATE, ignore_errors=True)
finish()
