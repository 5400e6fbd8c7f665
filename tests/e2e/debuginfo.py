"""debuginfo.py - where debug info comes from, for a program stripped of it:
--debug-file (checked by build-id; a mismatch refused, or used with
--allow-loose-debug-match), .gnu_debuglink beside the program, and a
debuginfod server on 127.0.0.1 that the test runs (the only place the debug
file is), with the start-up report (--status) naming each source, progress
on a terminal while the download runs, and a clear line when the server
has nothing."""
import http.server
import os
import pty
import re
import shutil
import subprocess
import tempfile
import threading

from wraithtest import *

require_root()
tmp = tempfile.mkdtemp(prefix="wraith-debuginfo-")
src = fixture("chain-O2fp")
other = fixture("chain-O0")
prog = os.path.join(tmp, "chain")
dbg = os.path.join(tmp, "store", "chain.debug")
os.makedirs(os.path.dirname(dbg))
subprocess.run(["objcopy", "--only-keep-debug", src, dbg], check=True)
subprocess.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + dbg, src, prog], check=True)
wrong = os.path.join(tmp, "store", "other.debug")
subprocess.run(["objcopy", "--only-keep-debug", other, wrong], check=True)
build_id = re.search(r"Build ID: ([0-9a-f]+)",
                     subprocess.run(["readelf", "-n", prog], capture_output=True,
                                    text=True).stdout).group(1)

# the debuginfod server: buildid/<id>/debuginfo, nothing else
requests = []
served = os.path.join(tmp, "served")


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=served, **kw)

    def log_message(self, *a):
        requests.append(self.path)


os.makedirs(os.path.join(served, "buildid", build_id))
shutil.copy(dbg, os.path.join(served, "buildid", build_id, "debuginfo"))
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
URL = "http://127.0.0.1:%d" % httpd.server_address[1]

fx = Fixture(prog, [500])
PRINT = ["-p", fx.pid, "-s", 'trace leaf { print "x={}", x; }', "--max-events", 2,
         "--script-output", "plain", "-q"]
ENV = {"DEBUGINFOD_URLS": "", "XDG_CONFIG_HOME": tmp}


def report_line(stderr):
    m = re.search(r"\] %s\n      debug info: ([^\n]*)" % re.escape(prog), stderr)
    return m.group(1) if m else None


# nothing: the debug file is where the debuglink does not look
res = run(["-p", fx.pid, "--status", "-s", "trace leaf {}", "--dry-run"], env=ENV)
eq(report_line(res.stderr), "none; build-id %s" % build_id, "--status: no debug info")
check("probes: functions by symbol only (no FILE:LINE, no variables); frames: symbol names only"
      in res.stderr, "--status says what no debug info means")
res = run(PRINT, env=ENV)
check(res.returncode == 2 and "'x'" in res.stderr, "without debug info, x is unknown (%r)" % res.stderr)

# --debug-file
res = run(PRINT + ["-d", dbg, "--status"], env=ENV)
eq(res.returncode, 0, "-d: exit 0 (%r)" % res.stderr[-300:])
check(re.fullmatch(r"(x=\d+\n){2}", res.stdout), "-d: the variable reads (%r)" % res.stdout)
eq(report_line(res.stderr), "--debug-file (%s); build-id %s" % (dbg, build_id),
   "--status names --debug-file")
res = run(PRINT + ["--debug-file", wrong], env=ENV)
eq(res.returncode, 2, "-d with another build's debug file: exit 2")
check(re.search(r"wraith: --debug-file %s does not belong to %s: its build-id is [0-9a-f]+, "
                r"chain's is %s \(--allow-loose-debug-match uses it anyway\)"
                % (re.escape(wrong), re.escape(prog), build_id), res.stderr),
      "the mismatch is explained (%r)" % res.stderr)
res = run(["-p", fx.pid, "-s", "trace leaf {}", "--dry-run", "-d", wrong,
           "--allow-loose-debug-match"], env=ENV)
check(res.returncode == 0 and "warning: --debug-file %s does not match %s" % (wrong, prog)
      in res.stderr, "--allow-loose-debug-match: used with a warning (%r)" % res.stderr[-300:])

# .gnu_debuglink beside the program
shutil.copy(dbg, os.path.join(tmp, "chain.debug"))
res = run(["-p", fx.pid, "--status", "-s", "trace leaf {}", "--dry-run"], env=ENV)
eq(report_line(res.stderr), "debuglink (%s/chain.debug); build-id %s" % (tmp, build_id),
   "--status names the debuglink file")
os.unlink(os.path.join(tmp, "chain.debug"))

# debuginfod: off by default even with DEBUGINFOD_URLS set
res = run(["-p", fx.pid, "--status", "-s", "trace leaf {}", "--dry-run"],
          env=dict(ENV, DEBUGINFOD_URLS=URL))
check("debuginfod: off (DEBUGINFOD_URLS is set; --debuginfod on asks %s)" % URL in res.stderr
      and not requests, "debuginfod off: the server is not asked, the report says how to")

# debuginfod on: downloaded into the cache, with progress on a terminal
cache = os.path.join(tmp, "cache")
args = PRINT + ["--debuginfod", "on", "--debuginfod-url", URL, "--debuginfod-cache-dir", cache,
                "--status"]
master, slave = pty.openpty()
proc = subprocess.Popen([WRAITH] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=slave,
                        text=True, env=dict(os.environ, **ENV))
os.close(slave)
err = read_terminal(master)
out = proc.communicate(timeout=60)[0]
err = err.decode(errors="replace").replace("\r\n", "\n")
eq(proc.returncode, 0, "--debuginfod on: exit 0 (%r)" % err[-300:])
check(re.fullmatch(r"(x=\d+\n){2}", out), "--debuginfod on: the variable reads (%r)" % out)
check("/buildid/%s/debuginfo" % build_id in requests, "the server was asked by build-id")
check("wraith: downloading debug info of chain from debuginfod: " in err,
      "progress shows while the download runs (%r)" % err[:300])
eq(report_line(err.replace("\r\033[K", "\n")),
   "debuginfod (%s/%s/debuginfo); build-id %s" % (cache, build_id, build_id),
   "--status names debuginfod and the cached file")

# the server has nothing: one clear line; `ask` asks it too, and says it does not prompt
empty = os.path.join(tmp, "empty-cache")
shutil.rmtree(os.path.join(served, "buildid"))
res = run(["-p", fx.pid, "--status", "-s", "trace leaf {}", "--dry-run", "--debuginfod", "ask",
           "--debuginfod-url", URL, "--debuginfod-cache-dir", empty], env=ENV)
check("wraith: warning: debuginfod: 'ask' works as 'on': wraith does not prompt, it fetches missing "
      "debug files without asking\n" in res.stderr, "--debuginfod ask: one line says it is on (%r)" % res.stderr[:300])
check("wraith: warning: debuginfod: no debug info for chain (build-id %s) on %s\n" % (build_id, URL)
      in res.stderr, "nothing on the server: one clear line (%r)" % res.stderr[-400:])
eq(report_line(res.stderr), "none; build-id %s" % build_id, "--status: none")

httpd.shutdown()
fx.stop()
check_no_leftovers("after the debug info tests")
shutil.rmtree(tmp, ignore_errors=True)
finish()
