"""hits.py - per-hit figures that travel between hosts, and where a hit's
time goes inside BPF (bench/run.py imports this; issue 25).

Section:
  hits  the hot loop at its own depth (about ten frames, the walk ends at
        _start), each configuration traced live for ROUNDS rounds of
        ROUND_N calls: for each, the nanoseconds a call gains on the traced
        thread (its CPU time, traced minus untraced) and the BPF
        nanoseconds per program run (kernel.bpf_stats_enabled), beside the
        bare uprobe's own (bpftrace's `@h = count()`) and bpftrace's
        frame-pointer `ustack`.  Also `bt` at depth 32 on a deeper stack,
        and a chain of 20 frames through three shared libraries
        (bench/chainlib.c; what a hit's backtrace held is reported).  A uprobe trap costs ~0.8 us on some hosts and
        5.6 us on others: the ratios of bench's other sections hide
        wraith's own cost on the second kind, these figures do not.

        Where a hit's time goes: given --stages-wraith PATH, a wraith
        built --enable-stage-timing, each wraith configuration runs once
        more with it, which reads the map wr_stage_ns and reports its
        stages (bpf-templates/stages.bpf.h): ns per hit in each, after
        taking off each mark's own cost (the `timer` stage).  Such a build
        is slower by that cost times the marks of a hit, so only the split
        comes from it, never a figure above.  (--wraith pointing to an
        instrumented build gives the split too, with its slower figures.)
        The host's own drift: a round's BPF time moves with the speed the
        host gives the guest's CPU at that moment (on the AMD VM, by 40%
        between rounds a second apart), whatever program runs.  So each
        wraith configuration on the hot loop's function runs ROUNDS more
        rounds with REF_PROG (bench/helpers.bpf.c, attached by
        bench/helpers.c) on the same hits: a program wraith does not
        touch, whose time per run measures the host in that round.
        count bt's spread target is judged on its time relative to it.
  sites one site against two: `print "{}", x` and `print "x"` on
        wr_bench_twin(), inlined at two call sites hit in turn, against
        wr_bench_solo(), a noinline copy of it; the same figures.
"""
import json
import os
import statistics
import subprocess
import time
import types

import helpers  # bench/helpers.py: what each piece of a hit costs inside BPF

ROUNDS = 4
ROUND_N = 20000
SHALLOW = 2        # recursion below the loop: 9 frames from wr_bench_hot to _start
DEEP = 40          # for depth 32: a walk of 32 frames, truncated
CHAIN_LIBS = ("libwrchain1.so", "libwrchain2.so", "libwrchain3.so")
# The reference a round's host speed is measured by: 1 KiB of the stack
# copied (a bt's walk is mostly its stack copy).
REF_PROG = "probe_read_user_1k"


class Reference:
    """REF_PROG, attached beside a tracer on the hot loop's function by
    bench/helpers.c's loader (built here as `make bench-helpers` builds it)."""

    def __init__(self, b, hotloop):
        obj, loader = helpers.build(os.path.dirname(hotloop))
        self.hotloop = hotloop
        self.off = helpers.file_offset(hotloop, "wr_bench_hot")
        self.ld = helpers.Talker(["taskset", "-c", b.TOOL_CPU, loader, obj])
        if self.ld.first != ["ready"]:
            raise RuntimeError("helpers: the loader did not start")

    def attach(self, pid):
        return self.ld.ask("attach %s %s %x %d" % (REF_PROG, self.hotloop, self.off, pid)) == ["ok"]

    def stats(self):
        """(runs, run time in ns) so far."""
        s = self.ld.ask("stats " + REF_PROG)
        return int(s[0]), int(s[1])

    def detach(self):
        self.ld.ask("detach")

    def close(self):
        self.ld.close()


def configs(hotloop):
    """(key, label, tool, script, depth, fixture, command)."""
    hot = "wr_bench_hot"
    bare = "uprobe:%s:%s { @h = count(); }" % (hotloop, hot)
    ustack = "uprobe:%s:%s { @[ustack] = count(); }" % (hotloop, hot)
    return [
        ("bare", "bpftrace `@h = count()` (the bare uprobe)", "bpftrace", bare, 0, "shallow", "run"),
        ("ustack", "bpftrace `@[ustack] = count()` (frame pointers)", "bpftrace", ustack, 0,
         "shallow", "run"),
        ("empty", "wraith `trace %s { }`" % hot, "wraith", "trace %s { }" % hot, 128, "shallow",
         "run"),
        ("print", 'wraith `print "x"`', "wraith", 'trace %s { print "x"; }' % hot, 128, "shallow",
         "run"),
        ("bt", "wraith `bt` (the whole stack)", "wraith", "trace %s { bt; }" % hot, 128, "shallow",
         "run"),
        ("count", "wraith `count bt` (the whole stack)", "wraith-count",
         "trace %s { count bt; }" % hot, 128, "shallow", "run"),
        ("bt32", "wraith `bt` at depth 32", "wraith", "trace %s { bt; }" % hot, 32, "deep", "run"),
        ("chain", "wraith `bt` through 3 shared libraries", "wraith", "trace wr_chain_hot { bt; }",
         128, "shallow", "chain"),
    ]


def stage_dump(pid):
    """The summed counters of wr_stage_ns held by process @pid, by stage:
    {name: [ns, marks]}; None when its wraith is not instrumented."""
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                ids = [int(l.split()[1]) for l in f if l.startswith("map_id:")]
        except OSError:
            continue
        for i in ids:
            out = subprocess.run(["bpftool", "map", "dump", "id", str(i), "-j"],
                                 capture_output=True, text=True)
            if out.returncode or '"timer"' not in out.stdout:
                continue
            tot = {}
            for ent in json.loads(out.stdout):
                for v in ent.get("formatted", ent)["values"]:
                    for name, st in v["value"].items():
                        if name != "last":
                            a = tot.setdefault(name, [0, 0])
                            a[0] += st["ns"]
                            a[1] += st["n"]
            return tot
    return None


def stage_split(d0, d1):
    """Per hit, each stage's ns net of its marks' own cost, and marks per
    hit, between two dumps: [(stage, ns, marks)], in the template's order."""
    hits = d1["header"][1] - d0["header"][1]
    dt = d1["timer"][1] - d0["timer"][1]
    if hits <= 0 or dt <= 0:
        return None
    mark = (d1["timer"][0] - d0["timer"][0]) / dt
    out = [("one mark (taken off each)", mark, 1.0)]
    for name in d1:
        n = d1[name][1] - d0[name][1]
        if name == "timer" or n <= 0:
            continue
        out.append((name, (d1[name][0] - d0[name][0] - n * mark) / hits, n / hits))
    return out


def ref_rounds(b, ref, tr, ids, fx, command):
    """ROUNDS more rounds with @ref attached beside tracer @tr (its
    programs @ids) on the same hits: [(the tracer's BPF ns per run, the
    reference's)]."""
    out = []
    if not ref.attach(fx.pid):
        return out
    try:
        fx.cmd("%s %d" % (command, ROUND_N // 10))
        for _ in range(ROUNDS):
            b.sysctl("kernel.bpf_stats_enabled", 1)
            s0, r0 = b.bpf_progs(), ref.stats()
            fx.cmd("%s %d" % (command, ROUND_N))
            s1, r1 = b.bpf_progs(), ref.stats()
            cnt, ns, _ = b.bpf_delta(s0, s1, ids)
            if cnt and r1[0] > r0[0]:
                out.append((ns / cnt, (r1[1] - r0[1]) / (r1[0] - r0[0])))
            tr.drain(0, settle=0.05)
    finally:
        ref.detach()
    return out


def one_config(b, wraith, cfg, fx, workdir, ref=None):
    """Rounds of one configuration traced by @wraith (for a wraith
    configuration): [(thread ns per call, BPF ns per run)], the stage
    split of all rounds (or None), the backtrace's shape, and with @ref
    (a Reference, for a configuration on the hot loop's function) the
    rounds with it (ref_rounds())."""
    key, _, kind, script, depth, _, command = cfg
    ctx = types.SimpleNamespace(**vars(b.ctx))
    ctx.wraith = wraith
    tr = b.start_tracer(ctx, ("h-" + key, "", kind, script, depth), fx.pid, workdir)
    rounds, split, shape, refr = [], None, None, []
    try:
        ids = b.prog_ids_of(tr.p.pid)
        time.sleep(0.3)  # the tracer writes its new ring once, early on
        fx.cmd("%s %d" % (command, ROUND_N // 10))
        d0 = stage_dump(tr.p.pid) if kind.startswith("wraith") else None
        for _ in range(ROUNDS):
            b.sysctl("kernel.bpf_stats_enabled", 1)
            s0 = b.bpf_progs()
            cpu = fx.cmd("%s %d" % (command, ROUND_N))[1] / ROUND_N
            s1 = b.bpf_progs()
            cnt, ns, _ = b.bpf_delta(s0, s1, ids)
            rounds.append((cpu, ns / cnt if cnt else None, cnt / ROUND_N))
            tr.drain(0, settle=0.05)
        d1 = stage_dump(tr.p.pid) if d0 else None
        split = stage_split(d0, d1) if d1 else None
        if ref and kind.startswith("wraith") and "wr_bench_hot" in script and command == "run":
            refr = ref_rounds(b, ref, tr, ids, fx, command)
    finally:
        tr.finish()
    if kind == "wraith" and "bt" in script:
        shape = bt_shape(tr.out_path)
    return rounds, split, shape, refr


def bt_shape(path):
    """What the first backtrace the tracer wrote to @path holds: its frames,
    its status, and the frames of each shared library (a module named
    lib*.so*), in the order the walk met them; None when there is none."""
    try:
        with open(path) as f:
            line = f.readline()
        items = json.loads(line)["items"] if line.strip() else []
    except (OSError, ValueError, KeyError):
        return None
    for it in items:
        if it.get("type") != "backtrace":
            continue
        libs = {}
        for fr in it["frames"]:
            name = os.path.basename(fr.get("module") or "")
            if name.startswith("lib") and ".so" in name and not name.startswith("libc."):
                libs[name] = libs.get(name, 0) + 1
        return {"frames": len(it["frames"]), "status": it.get("status"), "libs": libs}
    return None


def measure(b, cfgs, fxs, commands, ref=None):
    """Every configuration of @cfgs ctx.reps times, rotated, each on its
    fixture of @fxs, against the untraced loops of @commands ({fixture:
    commands}); per configuration the rounds of all repetitions (and
    with @ref, a Reference, its rounds beside it: ref_rounds()): (rows,
    splits, untraced)."""
    ctx = b.ctx
    old = b.sysctl("kernel.bpf_stats_enabled")
    per = {c[0]: [] for c in cfgs}
    refs = {c[0]: [] for c in cfgs}
    splits, untraced, shapes = {}, {}, {}
    try:
        for rep in range(ctx.reps):
            for name, fx in fxs.items():
                for command in commands[name]:
                    u = [fx.cmd("%s %d" % (command, ROUND_N))[1] / ROUND_N for _ in range(3)]
                    untraced.setdefault((name, command), []).append(min(u))
            order = cfgs[rep % len(cfgs):] + cfgs[:rep % len(cfgs)]
            for cfg in order:
                fx = fxs[cfg[5]]
                rounds, split, shape, refr = one_config(b, b.ctx.wraith, cfg, fx, ctx.workdir, ref)
                refs[cfg[0]].extend(refr)
                if shape and cfg[0] not in shapes:
                    shapes[cfg[0]] = shape
                base = statistics.median(untraced[(cfg[5], cfg[6])])
                per[cfg[0]].extend((cpu - base, bpf, runs) for cpu, bpf, runs in rounds)
                if split:
                    splits[cfg[0]] = split
                b.log("  rep %d %-8s thread +%6.0f ns/call  bpf %s ns/run" % (
                    rep + 1, cfg[0], statistics.median(r[0] for r in rounds) - base,
                    "/".join("%.0f" % r[1] for r in rounds if r[1] is not None)))
        for cfg in cfgs if getattr(ctx, "stages_wraith", None) else ():
            if cfg[2].startswith("wraith"):
                _, split, _, _ = one_config(b, ctx.stages_wraith, cfg, fxs[cfg[5]], ctx.workdir)
                if split:
                    splits[cfg[0]] = split
    finally:
        b.sysctl("kernel.bpf_stats_enabled", old)
        for fx in fxs.values():
            fx.close()
    rows = {}
    for key, label, *_ in cfgs:
        added = [r[0] for r in per[key]]
        bpf = [r[1] for r in per[key] if r[1] is not None]
        rows[key] = {"label": label, "added": b.stats_of(added), "bpf": b.stats_of(bpf),
                     "bpf_rounds": bpf, "shape": shapes.get(key), "ref_rounds": refs[key],
                     "runs_per_call": b.stats_of([r[2] for r in per[key]])}
    return rows, splits, {"%s/%s" % k: b.stats_of(v) for k, v in untraced.items()}


def section_hits(b):
    """Every configuration ctx.reps times, rotated; per configuration the
    rounds of all repetitions."""
    ctx = b.ctx
    libs = [os.path.join(os.path.dirname(ctx.hotloop), n) for n in CHAIN_LIBS]
    cfgs = configs(ctx.hotloop)
    b.log("per-hit figures: %d configurations x %d repetitions" % (len(cfgs), ctx.reps))
    fxs = {"shallow": b.Fixture(ctx.hotloop, SHALLOW, libs), "deep": b.Fixture(ctx.hotloop, DEEP)}
    ref = Reference(b, ctx.hotloop)
    try:
        rows, splits, untraced = measure(b, cfgs, fxs, {"shallow": ("run", "chain"), "deep": ("run",)},
                                         ref)
    finally:
        ref.close()
    what = chain_what(rows["chain"].get("shape"))
    rows["chain"]["label"] += " (%s)" % what
    b.log("chain: %s" % what)
    return {"rows": rows, "splits": splits, "untraced": untraced}


CHAIN_FRAMES = 20  # the deep real stack: 20 frames in 3 shared libraries


def chain_what(shape):
    """What the chain's backtrace held, in words: its frames in the shared
    libraries, how many libraries, all its frames, its status."""
    if not shape:
        return "its backtrace not seen"
    return "%d frames in %d libraries, %d in all, %s" % (
        sum(shape["libs"].values()), len(shape["libs"]), shape["frames"], shape["status"])


def chain_ok(shape):
    """The chain's backtrace is the issue's deep stack, walked whole."""
    return bool(shape) and sum(shape["libs"].values()) >= CHAIN_FRAMES and \
        len(shape["libs"]) >= 3 and shape["status"] == "complete"


# The real program: python3.11d (CPython with its own DWARF) tracing
# PyObject_Size(), which its loop calls once per len(), beside the hot
# loop's same scripts in the same rotation.  "run": hits back to back;
# "work": the interpreter's own work between them.
PYTHON = "/usr/bin/python3.11d"
PY_FN = "PyObject_Size"


def real_configs():
    """(key, label, tool, script, depth, fixture, command)."""
    hot = "wr_bench_hot"
    bare = "uprobe:%s:%s { @h = count(); }" % (PYTHON, PY_FN)
    out = [
        ("hot_empty", "hot loop: `trace %s { }`" % hot, "wraith", "trace %s { }" % hot, 128,
         "shallow", "run"),
        ("hot_print", 'hot loop: `print "x"`', "wraith", 'trace %s { print "x"; }' % hot, 128,
         "shallow", "run"),
    ]
    for cmd, what in (("run", "back to back"), ("work", "with work between")):
        out += [
            ("py_bare_" + cmd, "python3.11d, %s: bpftrace `@h = count()` (the bare uprobe)" % what,
             "bpftrace", bare, 0, "python", cmd),
            ("py_empty_" + cmd, "python3.11d, %s: `trace %s { }`" % (what, PY_FN), "wraith",
             "trace %s { }" % PY_FN, 128, "python", cmd),
            ("py_print_" + cmd, 'python3.11d, %s: `print "x"`' % what, "wraith",
             'trace %s { print "x"; }' % PY_FN, 128, "python", cmd),
        ]
    return out


def python_fixture(b):
    """python3.11d running bench/pyloop.py, which speaks the hot loop's
    protocol, pinned as the hot loop is."""
    fx = b.Fixture.__new__(b.Fixture)
    fx.path = PYTHON
    fx.p = b.spawn([PYTHON, os.path.join(b.ctx.src, "bench", "pyloop.py")], cpu=b.PROBE_CPU,
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    line = fx.p.stdout.readline()
    if not line.startswith("ready "):
        raise RuntimeError("pyloop did not start: %r" % line)
    fx.pid = int(line.split()[1])
    return fx


def section_real(b):
    """print "x" and the empty probe on a real program against the hot
    loop, side by side; None without python3.11d."""
    if not os.access(PYTHON, os.X_OK):
        b.log("real program: %s not installed (python3.11-dbg), skipped" % PYTHON)
        return None
    cfgs = real_configs()
    b.log("real program: %d configurations x %d repetitions" % (len(cfgs), b.ctx.reps))
    fxs = {"shallow": b.Fixture(b.ctx.hotloop, SHALLOW), "python": python_fixture(b)}
    rows, splits, untraced = measure(b, cfgs, fxs, {"shallow": ("run",), "python": ("run", "work")})
    return {"rows": rows, "splits": splits, "untraced": untraced}


def real_lines(R, fmt_s):
    """The real-program section's lines of the table run.py prints."""
    out, real = [], R.get("real") or {}
    for row in (real.get("rows") or {}).values():
        out.append("%-58s %-34s %s" % ("per call, live: " + row["label"], fmt_s(row["added"], " ns"),
                                       "bpf %s ns/run" % (fmt_s(row["bpf"], "") if row["bpf"] else "-")))
    return out + stage_lines(real.get("splits") or {}, REAL_STAGE_KEYS)


def real_targets(R):
    """print "x" on the real program as cheap as on the hot loop: within
    10% of it, inside BPF, measured in the same rotation."""
    rows = ((R.get("real") or {}).get("rows")) or {}
    out = []
    for cmd, what in (("run", "back to back"), ("work", "with work between hits")):
        py, hot = rows.get("py_print_" + cmd), rows.get("hot_print")
        if not py or not hot or not py["bpf"] or not hot["bpf"]:
            continue
        r = py["bpf"][0] / hot["bpf"][0]
        out.append(('print "x" on a real program (python3.11d %s, %s) <= 1.1x the hot loop\'s, '
                    'inside BPF' % (PY_FN, what),
                    "%.2fx (%.0f vs %.0f ns/run; +%.0f vs +%.0f ns per call on the thread)" % (
                        r, py["bpf"][0], hot["bpf"][0], py["added"][0], hot["added"][0]),
                    "met" if r <= 1.1 else "missed"))
    return out


def real_limits(R, add):
    """What limits print on the real program with work between hits (doc:
    What limits the misses): the same growth in bpftrace's bare program,
    from this run's rows."""
    rows = ((R.get("real") or {}).get("rows")) or {}
    keys = ("py_bare_run", "py_bare_work", "py_print_run", "py_print_work", "hot_print")
    if not all(rows.get(k) and rows[k]["bpf"] for k in keys):
        return
    b0, b1, p0, p1, hot = (rows[k]["bpf"][0] for k in keys)
    add("**print \"x\" on a real program with work between hits** (%.2fx the hot loop's, "
        "%.0f against %.0f ns a run): a hit after the interpreter's own work (a `json.dumps()`) "
        "finds the program's code and the memory it touches out of the caches and pays to "
        "bring them back, whatever program it is.  bpftrace's bare `@h = count()` pays it too: "
        "on python3.11d it runs %.0f ns with work between hits against %.0f back to back "
        "(%.2fx, %+.0f ns); wraith's print %.0f against %.0f (%.2fx, %+.0f ns), and a hit "
        "of it touches more memory than bpftrace's (the event buffer, the probe's counters "
        "and gate, the ring buffer's pages).  Back to back, print on python3.11d runs as on the hot loop; what is left "
        "is what touching memory costs when the program between two hits has evicted it.\n"
        % (p1 / hot, p1, hot, b1, b0, b1 / b0, b1 - b0, p1, p0, p1 / p0, p1 - p0))


def render_real(R, spread, add):
    """The real-program part of doc/performance.md."""
    rows = ((R.get("real") or {}).get("rows")) or {}
    if not rows:
        return
    add("### A real program\n")
    add("`%s` (Debian's python3.11-dbg: CPython built with its own DWARF) "
        "running `bench/pyloop.py`, whose loop calls `len()` of a tuple, one call of `%s()` "
        "each (Python 3.11 specializes `len()` to a direct call): *back to back*, the calls "
        "alone; *with work between*, a `json.dumps()` of a small dict after each, so that "
        "the interpreter's own work between two hits takes the probe's maps, its event "
        "buffer and its code out of the caches, as in a program that does something.  The "
        "hot loop's rows are measured again in the same rotation, so the two compare under "
        "one load.  *added* and *BPF* as above, %d rounds of %s calls; *runs per call*, the "
        "program's runs (bpf_stats) over the loop's calls: 1.00 when each call is one hit.\n" % (
            PYTHON, PY_FN, ROUNDS, "{:,}".format(ROUND_N)))
    add("| configuration | added, ns per call (thread) | BPF ns per run | rounds apart "
        "| runs per call |")
    add("|---|---|---|---|---|")
    for r in rows.values():
        sp, runs = _round_spread(r["bpf_rounds"]), r.get("runs_per_call")
        add("| %s | %s | %s | %s | %s |" % (r["label"], spread(r["added"]),
                                            spread(r["bpf"]) if r["bpf"] else "–",
                                            "%.0f %%" % (100 * sp) if sp is not None else "–",
                                            "%.2f" % runs[0] if runs else "–"))
    add("")
    u = R["real"]["untraced"].get("python/work")
    if u:
        add("The loop with work between hits costs %s ns a call untraced, and varies by more "
            "than a hit costs from round to round: its *added* figures are within that noise, "
            "and only the BPF figures compare.\n" % spread(u))
    splits = R["real"].get("splits") or {}
    if splits:
        add("Split by stage (`--stages-wraith`, as in the section below), ns per hit:\n")
        stage_table(splits, add, REAL_STAGE_KEYS)


# The multi-site case: one probe of two sites (wr_bench_twin, inlined at
# two call sites, hit alternately) against one of one site (wr_bench_solo,
# a noinline copy of the same body), each in a tight loop.
SITES_CFGS = [
    ("solo_val", 'print "{}", x', "wraith", 'trace wr_bench_solo { print "{}", x; }', 128, "shallow",
     "solo"),
    ("twin_val", 'print "{}", x', "wraith", 'trace wr_bench_twin { print "{}", x; }', 128, "shallow",
     "twin"),
    ("solo_x", 'print "x"', "wraith", 'trace wr_bench_solo { print "x"; }', 128, "shallow", "solo"),
    ("twin_x", 'print "x"', "wraith", 'trace wr_bench_twin { print "x"; }', 128, "shallow", "twin"),
]


def section_sites(b):
    """The multi-site case: BPF ns per run and the thread's added ns per
    call, at one site and at two."""
    b.log("one site against two: %d configurations x %d repetitions" % (len(SITES_CFGS), b.ctx.reps))
    fxs = {"shallow": b.Fixture(b.ctx.hotloop, SHALLOW)}
    rows, _, untraced = measure(b, SITES_CFGS, fxs, {"shallow": ("solo", "twin")})
    return {"rows": rows, "untraced": untraced}


def sites_lines(R, fmt_s):
    """The multi-site case's lines of the table run.py prints."""
    rows = R.get("sites", {}).get("rows", {})
    out = []
    for key, row in rows.items():
        where = "one site" if key.startswith("solo") else "two sites"
        out.append("%-58s %-34s %s" % ("per call, live: %s, %s" % (row["label"], where),
                                       fmt_s(row["added"], " ns"),
                                       "bpf %s ns/run" % (fmt_s(row["bpf"], "") if row["bpf"] else "-")))
    return out


def render_sites(R, spread, add):
    """The multi-site case's part of doc/performance.md."""
    rows = R.get("sites", {}).get("rows")
    if not rows:
        return
    add("### One site against two\n")
    add("`bench/hotloop.c`'s `wr_bench_twin()` is inlined at two call sites that its loop hits "
        "in turn (a probe of two sites), `wr_bench_solo()` is a noinline copy of the same body "
        "(a probe of one); gcc -O2.  Each is traced live for %d rounds of %s calls in each "
        "repetition, *added* and *BPF* as above.\n" % (ROUNDS, "{:,}".format(ROUND_N)))
    add("| script | one site: added, ns per call | BPF ns per run | two sites: added | BPF ns per run "
        "| two − one, BPF |")
    add("|---|---|---|---|---|---|")
    for what in ("val", "x"):
        one, two = rows.get("solo_" + what), rows.get("twin_" + what)
        if not one or not two:
            continue
        d = two["bpf"][0] - one["bpf"][0] if one["bpf"] and two["bpf"] else None
        add("| `%s` | %s | %s | %s | %s | %s |" % (
            one["label"], spread(one["added"]), spread(one["bpf"]) if one["bpf"] else "–",
            spread(two["added"]), spread(two["bpf"]) if two["bpf"] else "–",
            "%+.0f ns" % d if d is not None else "–"))
    add("")


def _round_spread(bpf):
    """How far a configuration's rounds lie apart: max / min - 1."""
    return max(bpf) / min(bpf) - 1 if bpf and min(bpf) > 0 else None


def _corr(x, y):
    """Pearson's r of two equally long lists, None when either is flat."""
    mx, my = statistics.mean(x), statistics.mean(y)
    sx = sum((a - mx) ** 2 for a in x) ** 0.5
    sy = sum((c - my) ** 2 for c in y) ** 0.5
    return sum((a - mx) * (c - my) for a, c in zip(x, y)) / (sx * sy) if sx and sy else None


def ref_spread(row):
    """A configuration's rounds beside REF_PROG (ref_rounds()): how far
    its time relative to the reference's lies apart, how far its own and
    the reference's ns lie apart, and how closely the two move together;
    None without such rounds."""
    rr = [(w, r) for w, r in row.get("ref_rounds") or () if w and r]
    if len(rr) < 2:
        return None
    w, r = [x[0] for x in rr], [x[1] for x in rr]
    return {"rel": _round_spread([a / c for a, c in rr]), "own": _round_spread(w),
            "ref": _round_spread(r), "corr": _corr(w, r), "n": len(rr)}


def targets(R):
    """Issue 25's targets, each with the figures beside it."""
    h = R.get("hits")
    if not h:
        return []
    rows, t = h["rows"], []

    def bpf(key):
        return rows[key]["bpf"][0] if rows[key]["bpf"] else None

    def verdict(v, limit):
        return "not measured" if v is None else "met" if v <= limit else "missed"

    bare = rows["bare"]
    regime = "; bare uprobe %.0f ns/call on the thread, BPF %.0f ns/run" % (
        bare["added"][0], bpf("bare") or 0)
    shape = rows["chain"].get("shape")
    for key, limit, what in (("bt", 500, "bt, the hot loop's whole stack,"),
                             ("bt32", 1000, "bt at depth 32"),
                             ("chain", 800, "bt of %d frames in 3 libraries (the chain: %s)" % (
                                 CHAIN_FRAMES, chain_what(shape))),
                             ("empty", 120, "the empty probe"),
                             ("print", 120, 'print "x"')):
        v = bpf(key)
        ok = verdict(v, limit)
        if key == "chain" and not chain_ok(shape):
            ok = "not measured: not that stack"
        t.append(("%s <= %d ns per run inside BPF" % (what, limit),
                  "%.0f ns (+%.0f ns per call on the thread%s)" % (v or 0, rows[key]["added"][0],
                                                                    regime), ok))
    a, u = rows["bt"]["added"][0], rows["ustack"]["added"][0]
    t.append(("bt costs the traced thread less than bpftrace's frame-pointer ustack",
              "+%.0f vs +%.0f ns per call (BPF %.0f vs %.0f ns/run%s)" % (
                  a, u, bpf("bt") or 0, bpf("ustack") or 0, regime), verdict(a, u)))
    c, w = bpf("count"), bpf("bt")
    r = c / w if c and w else None
    t.append(("count bt <= 70% of bt's BPF time",
              "%.0f%% (%.0f vs %.0f ns/run%s)" % (100 * (r or 0), c or 0, w or 0, regime),
              verdict(r, 0.70)))
    s = _round_spread(rows["count"]["bpf_rounds"])
    raw = "%.0f%% apart (%s ns/run)" % (100 * (s or 0), "–".join(
        "%.0f" % x for x in (min(rows["count"]["bpf_rounds"]), max(rows["count"]["bpf_rounds"]))))
    rs = ref_spread(rows["count"])
    if rs:
        t.append(("count bt: rounds within 15% of each other (BPF time against a reference "
                  "program on the same hits)",
                  "%.0f%% apart against `%s` (%d rounds; in ns %.0f%% apart, the reference "
                  "%.0f%%, r = %.2f); in the rounds above %s" % (
                      100 * rs["rel"], REF_PROG, rs["n"], 100 * rs["own"], 100 * rs["ref"],
                      rs["corr"] or 0, raw), verdict(rs["rel"], 0.15)))
    else:
        t.append(("count bt: rounds within 15% of each other (BPF ns/run)", raw, verdict(s, 0.15)))
    return t


def table_lines(R, fmt_s):
    """The section's lines of the table run.py prints."""
    h = R.get("hits")
    if not h:
        return sites_lines(R, fmt_s) + real_lines(R, fmt_s) + helper_lines(R)
    out = sites_lines(R, fmt_s) + real_lines(R, fmt_s)
    for key, row in h["rows"].items():
        out.append("%-58s %-34s %s" % ("per call, live: " + row["label"],
                                       fmt_s(row["added"], " ns"),
                                       "bpf %s ns/run" % (fmt_s(row["bpf"], "")
                                                          if row["bpf"] else "-")))
    return out + stage_lines(h["splits"], STAGE_KEYS) + helper_lines(R)


def helper_lines(R):
    """Lines of the table run.py prints: each helper program's BPF ns."""
    res = R.get("helpers")
    if not res:
        return []
    return ["%-58s %-34s %s" % ("BPF ns per run, helper program `%s`" % n,
                                "%.0f [%.0f-%.0f] ns" % tuple(res["rows"][n]["bpf"]),
                                "%+.0f over empty" % res["rows"][n]["over"])
            for n in res["order"]]


def stage_lines(splits, order):
    """Lines of the table run.py prints: each stage's ns per hit in each
    configuration of @order that has a split."""
    out, keys = [], [k for k in order if k in splits]
    for name in stage_names(splits, keys):
        out.append("%-58s %s" % ("stage %s, ns per hit (%s)" % (name, "/".join(keys)), " / ".join(
            "%.0f" % v[0][0] if v else "-" for v in
            ([(ns, n) for s, ns, n in splits[k] if s == name] for k in keys))))
    return out


def render(R, spread, add):
    """The section of doc/performance.md."""
    h = R.get("hits")
    if not h:
        render_sites(R, spread, add)
        render_real(R, spread, add)
        render_helpers(R, add)
        return
    rows = h["rows"]
    add("## Per-hit figures that travel between hosts\n")
    add("The hot loop at its own depth: `bench/hotloop.c` recursing %d levels, so a walk from "
        "`wr_bench_hot` reaches `_start` in 9 frames (depth 32: %d levels, the walk "
        "truncated), and `chain`: the same program calling through three shared libraries "
        "(`bench/chainlib.c`; one hit's backtrace in this run: %s).  Each configuration is traced "
        "live for %d rounds of %s calls in each repetition; *added* is the traced thread's CPU "
        "time per call minus an untraced call's (so it holds the uprobe trap), *BPF* the "
        "program's run time per run (`kernel.bpf_stats_enabled`, tail calls included), both "
        "the median of every round with the min–max spread.  The first row is the bare "
        "uprobe: what the trap and an almost empty program cost on this host; a host whose "
        "trap costs 5 µs hides everything wraith adds in a ratio, these absolute figures do "
        "not.\n" % (SHALLOW, DEEP, chain_what(rows["chain"].get("shape")), ROUNDS,
                     "{:,}".format(ROUND_N)))
    add("| configuration | added, ns per call (thread) | BPF ns per run | rounds apart |")
    add("|---|---|---|---|")
    for key, r in rows.items():
        s = _round_spread(r["bpf_rounds"])
        add("| %s | %s | %s | %s |" % (r["label"], spread(r["added"]),
                                       spread(r["bpf"]) if r["bpf"] else "–",
                                       "%.0f %%" % (100 * s) if s is not None else "–"))
    add("")
    render_sites(R, spread, add)
    render_real(R, spread, add)
    add("### Where a hit's time goes inside BPF\n")
    if not h["splits"]:
        add("No split by stage in this run: it needs a wraith built `--enable-stage-timing` "
            "(`make bench BENCH_ARGS='--stages-wraith PATH'`).\n")
        render_helpers(R, add)
        return
    add("From a second build configured `--enable-stage-timing` (`--stages-wraith`), the "
        "same configurations once more: each stage of a hit charges the time since the last "
        "mark to its own per-CPU counter (`bpf-templates/stages.bpf.h`), and each mark's own "
        "cost (a clock read and a map lookup, the first row) is taken off every stage.  ns per "
        "hit, with the marks per hit in parentheses (a stage met once per frame shows the "
        "frames); a stage of a few ns is within the noise of the mark's cost.  The "
        "instrumented build's run times are longer by about one mark per row per hit, so "
        "the figures above come from the plain build.  *statements* holds the probe's own "
        "code (print items; for a `bt`, reserving its item and taking the registers); "
        "*rule_step* the step of unwind/step.h with its reads from the stack copy; "
        "*walk_replay* a whole walk taken again from the last one this CPU finished (its "
        "check: the same registers, and the same value in every stack word that walk read), "
        "or, when the check fails, the check and the start of recording a new one; "
        "*walk_keep* the end of a recorded walk, kept for the next; *frame_memo*, "
        "*frame_cache*, *plain_run* the frames of a walk unwound one by one: at the walk's "
        "previous address, found in the frame cache, a run of recursion; *module_search*, "
        "*row_search* and *miss_fill* a frame that was not in the cache.\n")
    stage_table(h["splits"], add)
    count_floor(h["splits"], add)
    render_helpers(R, add)


def render_helpers(R, add):
    """What each piece of a hit costs on this host (bench/helpers.py)."""
    res = R.get("helpers")
    add("### What every program and every event pay on this host\n")
    if not res:
        add("Not measured in this run: the section `helpers` (`make bench-helpers`, "
            "bench/helpers.py) times each piece of a hit on its own.\n")
        return
    rows = res["rows"]
    add("`bench/helpers.py` attaches tiny programs of its own (`bench/helpers.bpf.c`), one at "
        "a time, to the same `wr_bench_hot` of the hot loop at its own depth by multi-uprobe "
        "links, as wraith attaches its probes, with a reader consuming their ring buffer on "
        "the other CPU: %d rounds of %s calls, the programs rotated in each, load average %.1f "
        "at the start and %.1f at the end.  *BPF ns per run* is `kernel.bpf_stats_enabled`'s "
        "(median, min–max of the rounds); *over `empty`* what the program adds to an empty "
        "one, whose own figure every BPF program pays, bpftrace's too (the statistics' two "
        "clock reads and the call into the program); *thread* the traced thread's added CPU "
        "time per call, the uprobe trap included.\n"
        % (res["rounds"], "{:,}".format(res["calls"]), res["load"][0], res["load"][1]))
    for line in helpers.table(res):
        add(line)
    add("")
    need = [n for n in ("attach_cookie", "current_pid_tgid", "ktime_get_ns", "ringbuf_output_32",
                        "event_floor", "probe_read_user_8", "ringbuf_query", "hash_lookup")
            if n in rows]
    if len(need) < 8:
        return
    emp = (R.get("hits") or {}).get("rows", {}).get("empty")
    add("An event needs the probe's cookie (its probe id and process, %+.0f ns), the pid and "
        "tid (%+.0f), a timestamp (%+.0f) and the output of its bytes (%+.0f for 32 bytes), "
        "each a helper call; together, `event_floor`, %.0f ns a run, is what any probe that "
        "sends an event costs on this host%s.  Inlined lookups in arrays (per-CPU or not) "
        "cost nothing measurable, a helper call 20–50 ns, a lookup in a hash map %+.0f, a "
        "ring-buffer query %+.0f, and a read of user memory (`bpf_probe_read_user`) %+.0f "
        "for the first of a hit: the stack copy a `bt` starts from pays that once.  So the "
        "helper calls a hit makes, not the instructions it runs, are what a hit costs here; "
        "what wraith adds to the floor is its hit counter, the script's gate and the wake-up "
        "test of the ring (two queries).\n"
        % (rows["attach_cookie"]["over"], rows["current_pid_tgid"]["over"],
           rows["ktime_get_ns"]["over"], rows["ringbuf_output_32"]["over"],
           rows["event_floor"]["bpf"][0],
           ", against %.0f for wraith's empty probe in the table above" % emp["bpf"][0]
           if emp and emp.get("bpf") else "",
           rows["hash_lookup"]["over"], rows["ringbuf_query"]["over"],
           rows["probe_read_user_8"]["over"]))
    if "ringbuf_fields" in rows and "ringbuf_query_x2" in rows:
        add("The wake-up test's two queries (`ringbuf_query_x2`, %+.0f) read no more than "
            "the ring's two positions and its size; read from the ring map's kernel "
            "structures directly (`ringbuf_fields`: CO-RE loads, no helper call) they cost "
            "%+.0f.  The probe objects resolve no CO-RE relocation today (only the base "
            "object does, against the kernel BTF cut), so the empty probe and `print` still "
            "pay the queries.\n" % (rows["ringbuf_query_x2"]["over"],
                                     rows["ringbuf_fields"]["over"]))


def count_saving(splits):
    """What count bt saves against bt, from the split, or None: a dict of
    bt's output and header, count's header and count_stack, the stages
    both pay (shared), the ns saved, the ratio, and the shared ns at which
    the ratio would be 70%."""
    if "bt" not in splits or "count" not in splits:
        return None
    bt = {s: ns for s, ns, _ in splits["bt"][1:]}
    co = {s: ns for s, ns, _ in splits["count"][1:]}
    c = {"out": bt.get("output", 0), "hb": bt.get("header", 0), "hc": co.get("header", 0),
         "cs": co.get("count_stack", 0)}
    c["bt"] = sum(bt.values())
    c["shared"] = c["bt"] - c["out"] - c["hb"]
    c["saved"] = c["out"] + c["hb"] - c["hc"] - c["cs"]
    if c["bt"] <= 0:
        return None
    c["ratio"] = 1 - c["saved"] / c["bt"]
    c["need"] = c["saved"] / 0.3 - c["out"] - c["hb"]
    return c


def count_floor(splits, add):
    """What count bt can save against bt, from the split: the output and
    the event's timestamp (in the header)."""
    c = count_saving(splits)
    if not c:
        return
    add("`count bt` walks the same frames as `bt`, through the same stages; what it does "
        "not do is send the event (*output*, %.0f ns of `bt`'s %.0f) or read the clock for "
        "the event's timestamp (*header*, %.0f ns against `bt`'s %.0f), and what it does "
        "instead is find and bump the stack's counter (*count_stack*, %.0f ns).  Every other "
        "stage, %.0f ns here, is the walk and the set-up both pay, so `count bt` saves a fixed "
        "%.0f ns, whatever the walk costs: about %.0f%% of `bt` here, and 70%% only once the "
        "stages both pay come to %.0f ns or less.\n" % (
            c["out"], c["bt"], c["hc"], c["hb"], c["cs"], c["shared"], c["saved"],
            100 * c["ratio"], c["need"]))


def spread_sources(rows):
    """Where count bt's rounds spread, from this run's rounds, as a
    sentence: the other configurations' spread beside it, its own within
    one repetition (one tracer, ROUNDS rounds in a row) against that of
    its repetitions' medians, and (given rounds beside REF_PROG) how the
    reference program's rounds moved with them; "" when the rounds are not
    whole repetitions."""
    b = rows["count"]["bpf_rounds"]
    if not b or len(b) % ROUNDS:
        return ""
    reps = [b[i:i + ROUNDS] for i in range(0, len(b), ROUNDS)]
    within = max(_round_spread(r) or 0 for r in reps)
    between = _round_spread([statistics.median(r) for r in reps]) or 0
    def spread(keys):
        return ", ".join("%s %.0f%%" % (k if k != "bt32" else "bt at depth 32",
                                        100 * (_round_spread(rows[k]["bpf_rounds"]) or 0))
                         for k in keys if rows.get(k, {}).get("bpf_rounds"))
    text = ("  Every configuration's rounds spread in this run (%s; %s, which do not walk).  "
            "Within one repetition (one tracer, %d rounds in a row) `count bt`'s rounds lie "
            "at most %.0f%% apart, its repetitions' medians %.0f%%." % (
                spread(("bt", "bt32", "chain")), spread(("empty", "print")), ROUNDS,
                100 * within, 100 * between))
    rs = ref_spread(rows["count"])
    if rs:
        text += ("  A program wraith does not touch, `%s` of bench/helpers.bpf.c (a 1 KiB "
                 "copy of the stack), run beside it on the same hits in %d more rounds, spread "
                 "%.0f%% where `count bt` spread %.0f%% (r = %.2f)%s.  Against the reference, "
                 "`count bt`'s rounds lie %.0f%% apart; that is the spread the target is judged "
                 "on." % (
                     REF_PROG, rs["n"], 100 * rs["ref"], 100 * rs["own"], rs["corr"] or 0,
                     ": the two moved together, so what moved them is the host, whatever program "
                     "ran" if (rs["corr"] or 0) >= 0.8 else "", 100 * rs["rel"]))
    return text


def count_limits(R, add):
    """What limits count bt's targets (doc: What limits the misses)."""
    h = R.get("hits")
    if not h:
        return
    c, rows = count_saving(h["splits"]), h["rows"]
    what = "**count bt against bt** (%.0f%% of `bt`'s BPF time, rounds %.0f%% apart)." % (
        100 * rows["count"]["bpf"][0] / rows["bt"]["bpf"][0],
        100 * (_round_spread(rows["count"]["bpf_rounds"]) or 0))
    what += spread_sources(rows)
    if not c:
        add(what + "  The split by stage (`--stages-wraith`) says where the time goes.\n")
        return
    add(what + "  `count bt` leaves out all it can of what `bt` does: it sends nothing "
        "(*output*) and, in a probe that only counts, reads no clock for a timestamp no event "
        "will carry (*header*); it adds the counter (*count_stack*, inlined lookups of the "
        "CPU's slot for the stack and an atomic add; the hash map only for a stack whose slot "
        "holds another).  Its walk is `bt`'s, and the walk is most of either, so the ratio is "
        "1 − (what it saves) / (`bt`'s cost): %.0f ns of %.0f in the split (section 2), %.0f%%.  "
        "It falls only as the walk gets cheaper: 70%% asks for the stages both pay to come to "
        "about %.0f ns, from %.0f.%s\n" % (c["saved"], c["bt"], 100 * c["ratio"], c["need"],
                                          c["shared"], count_floor_ratio(R)))


def count_floor_ratio(R):
    """The least count bt can cost against bt on this host, from the
    helpers section's hand-written count_floor and bt_floor (bench/
    helpers.bpf.c), as a sentence; "" without them."""
    hr = (R.get("helpers") or {}).get("rows", {})
    if "count_floor" not in hr or "bt_floor" not in hr:
        return ""
    co, bt = hr["count_floor"]["bpf"][0], hr["bt_floor"]["bpf"][0]
    return ("  What a walk taken from the last one must do at the least, written by hand "
            "(section 2, `count_floor` and `bt_floor`: the cookie, the pid, one copy of the "
            "584 bytes of stack the hot loop's walk reads, then a counter's add, or a "
            "timestamp and the event's output) costs %.0f and %.0f ns a run here: %.0f%% "
            "before any unwinding, so the copy of the stack both pay sets the ratio's floor "
            "on this host%s." % (co, bt, 100 * co / bt,
                                 ", above the target" if co / bt > 0.7 else ""))


def floor_limits(R, add):
    """What limits the empty probe's and print's targets (doc: What limits
    the misses): the floor of an event on this host."""
    res, h = R.get("helpers"), R.get("hits")
    if not res or not h or "event_floor" not in res["rows"]:
        return
    rows, fl = h["rows"], res["rows"]["event_floor"]["bpf"][0]
    add("**The empty probe and `print \"x\"`** (%.0f and %.0f ns a run inside BPF): any "
        "program that sends an event costs %.0f ns a run here (`event_floor`, section 2: "
        "*What every program and every event pay*): an empty program's %.0f, then the "
        "probe's cookie, pid and tid, the timestamp and the output, four helper calls that "
        "no event can do without.  120 ns is below that floor on this host; wraith's own "
        "share is what it adds to it, %.0f and %.0f ns.\n"
        % (rows["empty"]["bpf"][0], rows["print"]["bpf"][0], fl, res["rows"]["empty"]["bpf"][0],
           rows["empty"]["bpf"][0] - fl, rows["print"]["bpf"][0] - fl))


def bt_floor_limits(R, add):
    """What limits bt's per-run target at the hot loop's depth: the
    event's floor and the first read of user memory (bench/helpers.py),
    against the stages of the walk (the split)."""
    res, h = R.get("helpers"), R.get("hits")
    if not res or not h or "bt" not in h["rows"]:
        return
    hr = res["rows"]
    if "event_floor" not in hr or "probe_read_user_1k" not in hr:
        return
    bt = h["rows"]["bt"]["bpf"][0]
    floor = hr["event_floor"]["bpf"][0] + hr["probe_read_user_1k"]["over"]
    text = ("**bt at the hot loop's depth** (%.0f ns a run inside BPF): an event's floor "
            "(`event_floor`, %.0f ns) and the first read of user memory a walk makes, its stack "
            "copy (`probe_read_user_1k`, %+.0f), come to %.0f ns on this host before a frame "
            "is unwound; the rest, %.0f ns, is wraith's own: the walk, its set-up and end, and "
            "what the event carries beyond 32 bytes." % (
                bt, hr["event_floor"]["bpf"][0], hr["probe_read_user_1k"]["over"], floor,
                bt - floor))
    split = {n: ns for n, ns, _ in h["splits"].get("bt", [])[1:]} if h.get("splits") else {}
    own = [(n, split[n]) for n in ("walk_replay", "finish", "statements", "step_setup", "walk_keep")
           if n in split]
    if own:
        text += "  The largest of its stages in the split: %s." % ", ".join(
            "*%s* %.0f ns" % o for o in own)
    add(text + "\n")


STAGE_KEYS = ("empty", "print", "bt", "count", "bt32", "chain")
REAL_STAGE_KEYS = ("hot_empty", "py_empty_run", "py_empty_work", "hot_print", "py_print_run",
                   "py_print_work")


def stage_names(splits, keys):
    """The stages any of @keys' splits has, in the template's order."""
    names = []
    for k in keys:
        for name, _, _ in splits[k]:
            if name not in names:
                names.append(name)
    return names


def stage_table(splits, add, order=STAGE_KEYS):
    """Per-stage ns per hit of each instrumented configuration (of @order),
    side by side."""
    keys = [k for k in order if k in splits]
    names = stage_names(splits, keys)
    add("| stage | " + " | ".join(keys) + " |")
    add("|---|" + "---|" * len(keys))
    for name in names:
        cells = []
        for k in keys:
            v = [(ns, n) for s, ns, n in splits[k] if s == name]
            cells.append("%.0f (%.1f×)" % v[0] if v else "")
        add("| %s | %s |" % (name, " | ".join(cells)))
    add("| **sum of the stages** | %s |" % " | ".join(
        "%.0f" % sum(ns for s, ns, _ in splits[k][1:]) for k in keys))
    add("")
