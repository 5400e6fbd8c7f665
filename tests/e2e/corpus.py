"""corpus.py - every value of the generated corpus (tests/corpus/gen.py),
printed by wraith and by gdb at the same pc of the same live process, on
seven builds: gcc and clang at -O0 and -O2 (DWARF 5), both at -O2 with
-gdwarf-4, and gcc -O2 -flto.

Per build: the corpus program runs; wraith resolves every point
(--dry-run, which also names each site's address), then traces each
point once with all its expressions, and exits; then gdb attaches to the
same process, breaks at the very addresses wraith used, prints the same
expressions and detaches.  Every value is the same at every hit (see
gen.py), so the two must agree.

They are compared by content, through normalise() below: both texts are
parsed into the same tree (struct members by name, array elements in
order, scalars as text), so wraith's shape ({x: 1}, [1, 2]) and gdb's
({x = 1}, {1, 2}) compare equal when every name, number, string,
character, enumerator and marker (<optimized out>, <repeats N times>,
<synthetic pointer>, symbol+offset) agrees.  An error on both sides (gdb
has no such symbol here; wraith sees no such variable) agrees as well.
One disagreement is allowed and counted: wraith refusing a value
because it sits in a vector register, which a uprobe cannot read, where
gdb reads it from the stopped thread.  A struct held in registers or
split into pieces (DW_OP_piece) prints whole, as gdb prints it.

Values the probe could not read because their page was not resident
yet (a library's .rodata at -O2) are read again by wraith when it shows
the event, as they lie in read-only mappings of files; the library's
variable the program uses is read from the program's copy (a copy
relocation), which setup() changes at run time so that the library's
stale copy would differ.

`--located` compares only where values are found, not their text: each
side has a value, or <optimized out>, or an error, alike.  `--show`
prints every case and its verdict.  BUILD names limit the run to those
builds.
"""
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from wraithtest import *

BUILDS = ("gcc-O0", "gcc-O2", "clang-O0", "clang-O2", "gcc-O2-dwarf4", "clang-O2-dwarf4", "gcc-O2-lto")
CORPUS = os.environ.get("WRAITH_CORPUS", "")
SHOW = "--show" in sys.argv
LOCATED = "--located" in sys.argv
ONLY = [a for a in sys.argv[1:] if not a.startswith("--")]
VECTOR = "vector register"
UNREADABLE = "which a uprobe cannot read"  # a value in an SSE register (xmm0)


# ---- the points and their cases ----

def load_points():
    with open(os.path.join(CORPUS, "src", "cases.json")) as f:
        return json.load(f)


CHUNK = 8  # prints per probe: each probe's BPF program has a bounded stack
PAUSE_US = 20000  # between rounds of the corpus program


def point_script(point, skip):
    """wraith's script for one point: its cases not in @skip, CHUNK to a
    probe (each probe block traces the same target), one print per line;
    returns (text, [case index per line], [[case indices] per probe])."""
    keep = [i for i in range(len(point["cases"])) if i not in skip]
    lines, index, probes = [], [], []
    if not keep:  # still resolve the site, for gdb
        return "trace %s { }\n" % point["target"], [None, None], []
    for k in range(0, len(keep), CHUNK):
        lines.append("trace %s {" % point["target"])
        index.append(None)
        for i in keep[k:k + CHUNK]:
            lines.append('    print "{}", %s;' % point["cases"][i]["wraith"])
            index.append(i)
        lines.append("}")
        index.append(None)
        probes.append(keep[k:k + CHUNK])
    return "\n".join(lines) + "\n", index, probes


ERROR_RE = re.compile(r"^<script>:(\d+):\d+: error: (.*)$", re.M)
SITE_RE = re.compile(r"^\s+#\d+ (\S+)\+0x([0-9a-f]+) \(file offset")


def resolve_point(pid, point):
    """Dry-runs the point until wraith accepts it, taking out each case it
    refuses; returns ({case: error}, [(module, vaddr)] sites)."""
    refused, sites = {}, []
    while True:
        text, index, _ = point_script(point, refused)
        res = run(["-p", pid, "-s", text, "--dry-run"], timeout=600)
        m = ERROR_RE.search(res.stderr)
        if res.returncode == 0:
            for line in res.stdout.splitlines():
                s = SITE_RE.match(line)
                site = (s.group(1), int(s.group(2), 16)) if s else None
                if site and site not in sites:  # each probe of the point lists it
                    sites.append(site)
            return refused, sites
        line = int(m.group(1)) - 1 if m else -1
        if not m or line >= len(index) or index[line] is None:
            why = m.group(2) if m else res.stderr.strip()[-300:]
            for i in range(len(point["cases"])):
                refused.setdefault(i, "point not traced: " + why)
            return refused, []
        refused[index[line]] = m.group(2)


def wraith_values(pid, points, plans):
    """One run tracing every point that resolved; returns {point: [text
    per case]} from the first event of each of its probes."""
    texts, probes = [], []
    for p in points:
        refused, sites = plans[p["point"]]
        if sites and len(refused) < len(p["cases"]):
            text, _, chunks = point_script(p, refused)
            texts.append(text)
            probes += [(p, c) for c in chunks]
    if not texts:
        return {}
    # Probes are attached one by one, and the first fire while the last
    # are attached: enough events for 50 rounds of all of them.
    res = run(["-p", pid, "-s", "".join(texts), "--max-events", 50 * len(probes), "--timeout", 30,
               "--script-output", "json", "-q"], timeout=600)
    got, seen = {}, set()
    for ev in json_events(res.stdout):
        p, chunk = probes[ev["probe"] - 1]
        if ev["probe"] in seen:
            continue
        seen.add(ev["probe"])
        vals = got.setdefault(p["point"], [None] * len(p["cases"]))
        for i, it in zip(chunk, [it["text"] for it in ev["items"] if it["type"] == "print"]):
            vals[i] = it
    if len(seen) < len(probes):
        events = json_events(res.stdout)
        print("wraith run: rc %d, %d of %d probes hit in %d events (%s); stderr: %s" % (
            res.returncode, len(seen), len(probes), len(events),
            sorted(set(ev["probe"] for ev in events)), res.stderr[-500:]))
    return got


# ---- gdb ----

GDB_SCRIPT = r'''
import gdb, json
for c in ["set pagination off", "set confirm off", "set width 0", "set print pretty off"]:
    gdb.execute(c)
gdb.execute("attach %d" % PID, to_string=True)
by_addr = {}
for p in POINTS:
    gdb.execute("break *0x%x" % p["addr"], to_string=True)
    by_addr[p["addr"]] = p
out = {}
while len(out) < len(POINTS):
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error as e:
        gdb.write("WRERROR %s\n" % e)
        break
    pc = int(gdb.parse_and_eval("$pc"))
    p = by_addr.get(pc)
    if p is None or p["point"] in out:
        continue
    vals = []
    for expr in p["exprs"]:
        try:
            vals.append(gdb.execute("print " + expr, to_string=True))
        except gdb.error as e:
            vals.append("error: %s" % e)
    out[p["point"]] = vals
    gdb.execute("delete", to_string=True)
    for q in POINTS:
        if q["point"] not in out:
            gdb.execute("break *0x%x" % q["addr"], to_string=True)
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("detach", to_string=True)
'''


def load_bias(pid, module):
    """Runtime address minus ELF address of @module (a basename) in @pid."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and os.path.basename(parts[5]) == module and int(parts[2], 16) == 0:
                return int(parts[0].split("-")[0], 16) - first_load_vaddr(parts[5])
    return None


def first_load_vaddr(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and int(f[1], 16) == 0:
            return int(f[2], 16) & ~0xfff
    return 0


def gdb_values(pid, points, plans):
    """gdb attached to @pid, stopping once at each point's address;
    returns {point: [gdb's print output per case]}."""
    todo = []
    for p in points:
        refused, sites = plans[p["point"]]
        if len(sites) != 1:
            continue
        bias = load_bias(pid, sites[0][0])
        if bias is None:
            continue
        todo.append({"point": p["point"], "addr": bias + sites[0][1],
                     "exprs": [c["gdb"] for c in p["cases"]]})
    got = gdb_python(GDB_SCRIPT, pid, timeout=300, POINTS=todo)
    return got[0] if got else {}


# ---- comparing ----

def gdb_text(raw):
    """gdb's `print` output without the "$N = " history prefix."""
    raw = raw.strip()
    if raw.startswith("error: "):
        return raw
    return re.sub(r"^\$\d+ = ", "", raw)


def tokenize(s):
    """Tokens of a printed value: strings and characters whole, markers in
    angle brackets whole, words, numbers and punctuation."""
    toks, i = [], 0
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            toks.append(s[i:j + 1])
            i = j + 1
        elif c == "<" and re.match(r"<[^<>]*>", s[i:]):
            m = re.match(r"<[^<>]*>", s[i:])
            toks.append(m.group(0))
            i += len(m.group(0))
        elif c.isalnum() or c in "_-.+":
            m = re.match(r"[\w.+-]+", s[i:])
            toks.append(m.group(0))
            i += len(m.group(0))
        else:
            toks.append(c)
            i += 1
    return toks


def parse(toks, i=0):
    """A value tree from tokens: ("agg", [(name or None, value)]) for
    {...} and [...] (gdb writes arrays with braces too), else ("leaf",
    [tokens]).  Returns (tree, next index)."""
    if i < len(toks) and toks[i] in "{[":
        close = "}" if toks[i] == "{" else "]"
        items, i = [], i + 1
        while i < len(toks) and toks[i] != close:
            name = None
            if i + 1 < len(toks) and toks[i + 1] in ("=", ":") and re.match(r"^[\w<>]", toks[i]):
                name, i = toks[i], i + 2
            val, i = parse(toks, i)
            items.append((name, val))
            if i < len(toks) and toks[i] == ",":
                i += 1
        return ("agg", items), i + 1
    leaf = []
    while i < len(toks) and toks[i] not in (",", "}", "]"):
        leaf.append(toks[i])
        i += 1
    return ("leaf", leaf), i


def canon_leaf(toks):
    """A scalar's content: the type in parentheses and a pointer's type
    annotation are dropped (gdb writes `(int *) 0x10 <g>`, wraith
    `0x10 (int *)`); numbers in hex are compared as numbers."""
    out, depth = [], 0
    for t in toks:
        if t == "(":
            depth += 1
            continue
        if t == ")":
            depth -= 1
            continue
        if depth:
            continue
        if re.match(r"^0x[0-9a-f]+$", t):
            t = str(int(t, 16))
        out.append(t)
    return out


def canon(tree):
    kind, body = tree
    if kind == "leaf":
        return ("leaf", tuple(canon_leaf(body)))
    return ("agg", tuple((n, canon(v)) for n, v in body))


UNINIT = "[uninitialized]"


def normalise(text):
    if text is None:
        return None
    text = text.strip()
    if text.startswith("error: ") or text.startswith("wraith: "):
        return ("error",)
    if text.startswith(UNINIT):  # gdb's mark of DW_OP_GNU_uninit, before the value
        return ("uninitialized", normalise(text[len(UNINIT):]))
    return canon(parse(tokenize(text))[0])


def optimized_out(g):
    """gdb says a value is gone either as a marker in it or, for a value
    reached through one that is gone (`*p` with p optimized out), as an
    error; wraith shows both as <optimized out>."""
    return "<optimized out>" in g or g == "error: value has been optimized out"


def verdict(wraith, wraith_error, gdb):
    """'same', 'limit' (a vector register), or why they differ."""
    g = gdb_text(gdb) if gdb is not None else None
    if g is None:
        return "gdb did not stop here"
    if wraith_error is not None:
        if g.startswith("error: "):
            return "same"
        if VECTOR in wraith_error or UNREADABLE in wraith_error:
            return "limit"
        return "wraith refused: %s" % wraith_error
    if wraith is None:
        return "wraith printed nothing"
    if wraith.strip() == "<unavailable>":  # printed whole: gdb's marker, no value
        return "limit"
    if LOCATED:
        return "same" if ("<optimized out>" in wraith) == optimized_out(g) else "differs"
    if normalise(wraith) == normalise(g):
        return "same"
    return "differs"


# ---- one build ----

def run_build(build):
    name = "corpus-" + build
    path = os.path.join(CORPUS, "bin", name)
    points = load_points()
    fx = Fixture(path, [PAUSE_US])
    try:
        with ThreadPoolExecutor(max_workers=4) as ex:
            resolved = list(ex.map(lambda p: resolve_point(fx.pid, p), points))
        plans = {p["point"]: r for p, r in zip(points, resolved)}
        wv = wraith_values(fx.pid, points, plans)
        gv = gdb_values(fx.pid, points, plans)
    finally:
        fx.stop()
    rows = []
    for p in points:
        refused = plans[p["point"]][0]
        for i, case in enumerate(p["cases"]):
            w = wv.get(p["point"], [None] * len(p["cases"]))[i]
            g = gv.get(p["point"], [None] * len(p["cases"]))[i]
            rows.append((p["point"], case, w, refused.get(i), g, verdict(w, refused.get(i), g)))
    return build, rows


def report(build, rows):
    same = sum(1 for r in rows if r[5] == "same")
    limit = sum(1 for r in rows if r[5] == "limit")
    bad = [r for r in rows if r[5] not in ("same", "limit")]
    print("%-16s %3d cases: %3d equal, %2d in vector registers, %3d differ" % (
        build, len(rows), same, limit, len(bad)))
    for point, case, w, werr, g, v in rows if SHOW else bad[:40]:
        print("  %s %-14s %-28s %s\n      wraith: %s\n      gdb:    %s" % (
            build, point, case["gdb"], v, werr if werr is not None else w,
            gdb_text(g) if g is not None else None))
    check(not bad, "%s: every value equals gdb's (%d of %d differ)" % (build, len(bad), len(rows)))


require_root()
if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "bin")):
    fail("the corpus was not built (WRAITH_CORPUS=%r)" % CORPUS)
    finish()
total = 0
with ThreadPoolExecutor(max_workers=3) as ex:
    for build, rows in ex.map(run_build, [b for b in BUILDS if not ONLY or b in ONLY]):
        report(build, rows)
        total += len(rows)
check(total >= 300 or ONLY, "at least 300 cases per build (%d in all)" % total)
check_no_leftovers("after the corpus")
finish()
