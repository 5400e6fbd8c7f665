"""batch.py - `--batch FILE` against a live fixture, compared with golden
output (pids, addresses, module offsets and times normalised): commands,
probes added, disabled, enabled and deleted while others run, diag, help,
errors located at FILE:LINE (with --keep-going and without); a probe with
`bt` added after one without has complete backtraces.

libc's frames are normalised to `#N LIBC [libc.so.6+0xOFF]` (its inlined
calls dropped): what they show depends on whether libc6-dbg is installed,
and the golden holds either way, which the session run again with
/usr/lib/debug hidden checks."""
import os
import re
import sys

from wraithtest import *

require_root()
GOLDEN = os.path.join(SRCDIR, "tests", "e2e", "golden")
UPDATE = os.environ.get("WRAITH_UPDATE_GOLDEN") == "1"


def normalise(text, fx):
    text = text.replace(fx.path, "FIXTURE")
    text = text.replace(GOLDEN + "/", "")
    text = re.sub(r"\b%d\b" % fx.pid, "PID", text)
    text = re.sub(r"\+0x[0-9a-f]+", "+0xOFF", text)
    text = re.sub(r"file offset 0x[0-9a-f]+", "file offset 0xOFF", text)
    text = re.sub(r"\bhits \d+  events \d+", "hits N  events N", text)
    text = re.sub(r"(\d+) events, (\d+) backtraces", "N events, N backtraces", text)
    text = re.sub(r"(complete|truncated)( +)\d+", r"\1\2N", text)
    text = re.sub(r"/\S*/tests/fixtures/", "", text)
    return libc_frames(text)


def libc_frames(text):
    """Each frame of libc as `#N LIBC [libc.so.6+0xOFF]`, without the
    inlined calls before it."""
    out, inlined = [], []
    for line in text.splitlines(keepends=True):
        m = re.match(r"(\s*#\d+)(\.inline)? ", line)
        if m and m.group(2):
            inlined.append(line)
            continue
        if m and line.rstrip().endswith("[libc.so.6+0xOFF]"):
            inlined = []
            line = "%s LIBC [libc.so.6+0xOFF]\n" % m.group(1)
        out += inlined + [line]
        inlined = []
    return "".join(out + inlined)


def compare(name, got):
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        with open(path, "w") as f:
            f.write(got)
    with open(path) as f:
        want = f.read()
    if not eq(got, want, "golden %s" % name):
        for i, (g, w) in enumerate(zip(got.splitlines(), want.splitlines())):
            if g != w:
                print("       first difference at line %d:\n         got:  %r\n         want: %r" % (i + 1, g, w))
                break


fx = Fixture("chain-O2fp", [500])
batch = os.path.join(GOLDEN, "session.batch")
res = run(["-p", fx.pid, "--batch", batch, "--keep-going", "--script-output", "plain"])
eq(res.returncode, 2, "--keep-going: exit 2 because commands failed")
compare("session.out", normalise(res.stdout, fx))
compare("session.err", normalise(res.stderr, fx))

res = run(["-p", fx.pid, "--batch", batch, "--keep-going", "--script-output", "plain"],
          prefix=WITHOUT_DEBUG_FILES)
eq(res.returncode, 2, "without separate debug files: exit 2 as before")
compare("session.out", normalise(res.stdout, fx))

res = run(["-p", fx.pid, "--batch", batch, "--script-output", "plain"])
eq(res.returncode, 2, "without --keep-going: the first error stops the batch with exit 2")
check("session.batch:20: error: no probe 99" in res.stderr and "bogus" not in res.stderr,
      "the batch stopped at the first failing line (%r)" % res.stderr[-300:])

batch = os.path.join(GOLDEN, "errors.batch")
res = run(["-p", fx.pid, "--batch", batch, "--script-output", "plain"])
eq(res.returncode, 2, "a script error in a batch: exit 2")
compare("errors.out", normalise(res.stdout, fx))
compare("errors.err", normalise(res.stderr, fx))

# JSON: stdout carries only events, command output goes to stderr
batch = os.path.join(GOLDEN, "session.batch")
res = run(["-p", fx.pid, "--batch", batch, "--keep-going", "--script-output", "json"])
evs = json_events(res.stdout)
check(len(evs) >= 4 and all(e["items"] for e in evs), "json batch: stdout holds only events")
check("probe 1: leaf" in res.stderr, "json batch: command output on stderr")

# A probe added after one was deleted starts from zero (wire ids are not
# handed out again while others are free, and a new one's counters reset).
import tempfile
with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as f:
    f.write('trace leaf { print "a"; }\nwait events 60\ndelete 1\n'
            'trace leaf { print "b"; }\ninfo probes\n')
res = run(["-p", fx.pid, "--batch", f.name, "--script-output", "plain"])
os.unlink(f.name)
m = re.search(r"#2 leaf +enabled +sites 1 +hits (\d+)", res.stdout + res.stderr)
check(m and int(m.group(1)) < 60, "a probe added after a delete counts its own hits only (%s)"
      % (m.group(0) if m else (res.stdout + res.stderr)[-300:]))

# A probe with bt after one without: the first start of the kernel side
# found no probe wanting unwind tables, so the second's go in when it is
# added; its backtraces are complete, not dwarf-unavailable.
def bt_after_no_bt(f_x, name):
    with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as f:
        # probe 1 deleted once probe 2 is on, so the wait counts probe 2's
        # events however long its compile took (a sanitizer build is slow)
        f.write('trace leaf { print "a"; }\nwait events 2\ntrace leaf { print "b"; bt; }\n'
                'delete 1\nwait events 20\n')
    res = run(["-p", f_x.pid, "--batch", f.name, "--script-output", "json"])
    os.unlink(f.name)
    bts = [it for e in json_events(res.stdout) for it in e["items"] if it["type"] == "backtrace"]
    check(bts and all(b["status"] == "complete" for b in bts),
          "%s: bt in a probe added after one without: complete backtraces (%s)"
          % (name, sorted(set(b["status"] for b in bts))))
    check(bts and all(b["frames"][0]["function"] == "leaf" for b in bts),
          "%s: and they start at leaf" % name)


# `source FILE` in a session adds a script's probes as one: they start at
# one instant, so middle's and leaf's events take turns from the first on.
with tempfile.NamedTemporaryFile("w", suffix=".ws", delete=False) as sf:
    sf.write('trace leaf { print "leaf"; }\ntrace middle { print "middle"; }\n')
with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as f:
    f.write("source %s\nwait events 8\nquit\n" % sf.name)
res = run(["-p", fx.pid, "--batch", f.name, "--script-output", "plain"])
os.unlink(f.name)
os.unlink(sf.name)
seq = [l for l in res.stdout.splitlines() if l in ("leaf", "middle")][:8]
check(len(seq) == 8 and all(seq[i] != seq[i + 1] for i in range(7)),
      "source: a script's probes start together, their events alternate (%s)" % seq)

bt_after_no_bt(fx, "chain-O2fp")
clang = Fixture("chain-clang-O2", [500])
bt_after_no_bt(clang, "chain-clang-O2")
clang.stop()

check_no_leftovers("after batch runs")
fx.stop()
finish()
