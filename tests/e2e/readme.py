"""readme.py - the README shows what wraith does today.

Its sample is what scripts/demo.sh prints: the demo service is started and
traced with scripts/demo/demo.ws as the script does it, and the output up
to the first lookup by a GET (the README's; a PUT looks up from
store_insert) is compared line by line with the README's block, with pids,
times, module offsets, the request counters and libc's frames (which
depend on libc6-dbg) normalised; the per-probe summary that ends the run follows
the event.  Its first commands run as root as they are written,
so they must not need sudo, which a root shell may not have."""
import os
import re
import subprocess

from wraithtest import *

require_root()
README = os.path.join(SRCDIR, "README.md")
DEMO = os.path.join(SRCDIR, "scripts", "demo.sh")
SCRIPT = os.path.join(SRCDIR, "scripts", "demo", "demo.ws")
KVSERVICE = os.path.join(BUILDDIR, "scripts", "demo", "kvservice")

with open(README) as f:
    readme = f.read()
first = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
check(first.strip() and not re.search(r"^\s*sudo\b", first, re.M),
      "the README's first commands run as written, without sudo")
m = re.search(r"```\n\$ scripts/demo\.sh\n(.*?)```", readme, re.S)
check(m is not None, "the README shows the output of scripts/demo.sh")
# "[... ...]" stands for the events the README leaves out
want = [l for l in m.group(1).splitlines() if not l.startswith("[...")] if m else []
SUMMARY = re.compile(r"^wraith: #\d+ \S+: \d+ hits?, ")


def normalise(lines, pid):
    out = []
    for line in lines:
        line = re.sub(r"\b%d\b" % pid, "PID", line)
        line = re.sub(r"\[\d\d:\d\d:\d\d\.\d{3}\]", "[TIME]", line)
        line = re.sub(r"\+0x[0-9a-f]+\]", "+0xOFF]", line)
        line = re.sub(r'0x[0-9a-f]+ "user:\d+" \(request #\d+\)', '0xADDR "user:N" (request #N)', line)
        line = re.sub(r"^(\s+#\d+) .*\[libc\.so\.6\+0xOFF\]$", r"\1 LIBC [libc.so.6+0xOFF]", line)
        line = re.sub(r"^(wraith: #\d+ \S+: )\d+ hits?, \d+ delivered", r"\1N hits, N delivered", line)
        line = re.sub(r", \d+ not read \(the run ended first\)$", "", line)
        out.append(line)
    return out


svc = subprocess.Popen([KVSERVICE], stdout=subprocess.PIPE, text=True)
banner = svc.stdout.readline().rstrip("\n")
pid = svc.pid
with open(DEMO) as f:
    echo = re.search(r'echo "(demo: tracing kvservice \(pid \$demo\)[^"]*)"', f.read())
check(echo is not None, "demo.sh announces what it traces")
# Of any three requests in a row, two are GETs.
res = run(["-p", pid, "--script-file", SCRIPT, "--max-events", 3, "--color", "never"])
eq(res.returncode, 0, "the demo's wraith command exits 0 after three events")
events = re.split(r"\n(?=\[\d\d:)", res.stdout.rstrip("\n"))
get = [e for e in events if " do_get(" in e]
got = [banner, echo.group(1).replace("$demo", str(pid)) if echo else ""]
# The per-probe summary ends the run, after the events
summary = [l for l in res.stderr.splitlines() if SUMMARY.match(l)]
got += [l for l in res.stderr.splitlines() if l not in summary] + (get[0].split("\n") if get else [])
got += summary
svc.kill()
svc.wait()
got, want_pid = normalise(got, pid), re.search(r"pid (\d+),", want[0] if want else "")
want = normalise(want, int(want_pid.group(1)) if want_pid else -1)
eq(len(got), len(want), "as many lines as the README shows")
for i, (g, w) in enumerate(zip(got, want)):
    if g != w:
        fail("line %d differs:\n         got:    %r\n         README: %r" % (i + 1, g, w))
        break
check_no_leftovers("after the demo")
finish()
