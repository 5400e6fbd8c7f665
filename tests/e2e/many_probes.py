"""many_probes.py - 1,000 probes start and each fires as itself.

Probes whose programs come out the same (here: the same function, prints
that differ only in their text, which stays on the host) share one
compiled and verified program, attached once per probe with the probe's
id as the uprobe's cookie; so every event must still name its own probe
and carry its own text.  Two shapes side by side (one prints n, the other
small, which the fixture sets to -n) must not share.  Disabling one probe
of a shared program leaves the others attached.  Start-up time is
measured by bench/ (bench/run.py --only probes), not asserted here.
"""
import os
import tempfile

from wraithtest import *

require_root()
N = 1000
fx = Fixture("vars-O0", [100000])  # a call every 0.1 s: 1,000 events each
top = tempfile.mkdtemp(prefix="wraith-many-")
script = os.path.join(top, "many.ws")
with open(script, "w") as f:
    for i in range(N):
        if i % 2:
            f.write('trace probe_here { print "odd %d {}", small; }\n' % i)
        else:
            f.write('trace probe_here { print "even %d {}", n; }\n' % i)

# The events come within a second; then the run closes the 1,000 uprobes'
# links.  Multi-uprobe links, closed together, take a fraction of a second.
# Perf event links (WRAITH_UPROBE_LINKS=perf, or a kernel without multi
# links) each wait in the kernel for RCU grace periods under event_mutex,
# which every uprobe perf event on the machine takes to attach or detach:
# closed concurrently, they share grace periods, but take longer while
# other processes attach or detach uprobes.  The timeout only guards
# against a hang.
r = run(["-p", fx.pid, "--script-file", script, "--max-events", 2 * N, "--script-output", "json",
         "-q"], timeout=1200)
eq(r.returncode, 0, "%d probes: start and run (%r)" % (N, r.stderr[-300:]))
evs = json_events(r.stdout)
eq(len(evs), 2 * N, "%d probes: %d events" % (N, 2 * N))
bad = []
for e in evs:
    word, i, value = e["items"][0]["text"].split()
    i, value = int(i), int(value)
    n = value if word == "even" else -value
    if e["probe"] != i + 1 or word != ("odd" if i % 2 else "even") or n < 0:
        bad.append((e["probe"], e["items"][0]["text"]))
eq(bad[:5], [], "every event names its own probe and carries its own text and value")
eq(sorted(set(e["probe"] for e in evs)), list(range(1, N + 1)), "every probe fired")

# One probe of a shared program disabled: the other still fires, it does
# not.  (Events that came before the disable print in the next wait; one
# call's worth at most, so the last four are after it.)
# The two probes are one script (`source`), so they start together: two
# `trace` commands would start the second when it is attached, which may
# be after the fixture's next call.
shared = os.path.join(top, "shared.ws")
with open(shared, "w") as f:
    f.write('trace probe_here { print "a"; }\ntrace probe_here { print "b"; }\n')
batch = os.path.join(top, "shared.batch")
with open(batch, "w") as f:
    f.write('source %s\nwait events 2\ndisable 1\nwait events 6\nquit\n' % shared)
r = run(["-p", fx.pid, "--batch", batch, "--script-output", "json"])
eq(r.returncode, 0, "shared program, one probe disabled: runs (%r)" % r.stderr[-300:])
evs = [(e["probe"], e["items"][0]["text"]) for e in json_events(r.stdout)]
eq(sorted(evs[:2]), [(1, "a"), (2, "b")], "shared program: both probes fire")
eq(evs[-4:], [(2, "b")] * 4, "shared program, one probe disabled: only the other fires")

fx.stop()
check_no_leftovers("many_probes")
finish()
