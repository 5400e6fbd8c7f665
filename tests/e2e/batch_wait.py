"""batch_wait.py - `wait events N` in --batch fails at once, saying why,
when no probe can send an event (disabled, or only counting stacks):
it would wait forever.  A probe that can send lets it wait as before."""
from wraithtest import *

require_root()

fx = Fixture("inline-O2", [500])
tmp = tempfile.mkdtemp(prefix="wraith-wait.")
batch = os.path.join(tmp, "cmds")
with open(batch, "w") as f:
    f.write('trace leaf { print "x"; }\ndisable 1\ntrace outer { count bt; }\nwait events 2\n'
            'enable 1\nwait events 2\n')
res = run(["-p", fx.pid, "--batch", batch, "--keep-going", "--script-output", "plain"])
fx.stop()
eq(res.returncode, 2, "a failed wait fails the batch")
eq(res.stderr, "%s:4: error: wait events 2: no probe can send events: probe 1 (leaf) is disabled, "
   "probe 2 (outer) only counts stacks (count bt sends no event); `wait SECONDS` waits anyway\n" % batch,
   "wait events says why no event can come")
eq(res.stdout.count("x\n"), 2, "once the probe is enabled again, wait events waits for its events")
shutil.rmtree(tmp, ignore_errors=True)
check_no_leftovers("after the waits")
finish()
