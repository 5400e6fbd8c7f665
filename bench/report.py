"""report.py - renders doc/performance.md from the results of bench/run.py.

Only formatting and arithmetic on measured values live here; every number
in the page comes from the run that wrote it.  The explanations of where
time goes are written against those numbers: each claim names the figure
it rests on, so a later run that disproves one shows it.
"""
import os

import hits  # bench/hits.py (run.py put bench/ on the path)


def f0(v):
    return "n/a" if v is None else "{:,.0f}".format(v)


def f1(v):
    return "n/a" if v is None else "{:,.1f}".format(v)


def f2(v):
    return "n/a" if v is None else "{:,.2f}".format(v)


def spread(s, scale=1.0, fmt=f0, unit=""):
    if s is None:
        return "n/a"
    m, lo, hi = (x * scale for x in s)
    return "%s%s (%s–%s)" % (fmt(m), unit, fmt(lo), fmt(hi))


def pct(s):
    return spread(s, 100.0, f1, " %")


def render(ctx, R, table, depths, K):
    out = []
    add = out.append
    m = ctx.machine
    add("# wraith performance\n")
    add("What a probe and a backtrace cost on a hot path, measured by `make bench` "
        "(bench/run.py) on %s: Linux %s, %s CPUs (%s), %s, %s.  Every figure is the median "
        "of %d repetitions in this one run, with the min–max spread in parentheses; "
        "ratios, not absolute times, are the headline.  The whole suite took %.0f s.\n"
        % (m["date"], m["kernel"], m["cpus"], m["cpu"], m["bpftrace"], m["perf"], ctx.reps,
           R["elapsed_s"]))
    if R.get("load"):
        add("Load average (1 min) at the start and end of the run: %s and %s.  Other work on "
            "the machine inflates wall-clock figures; see *Method* for why per-hit costs are "
            "reported as the traced thread's CPU time.\n" % tuple(R["load"]))
        if max(float(x) for x in R["load"]) > 1.5:
            add("**This run shared the machine with other work.**  CPU-time figures exclude "
                "the time other processes ran, but not the cache, TLB and memory-bandwidth "
                "pressure they add: the bare-uprobe cost that every ratio below divides by "
                "moves with it, so the ratio verdicts of a loaded run can be off in either "
                "direction.  Run `make bench` on an otherwise idle machine for figures to "
                "quote.\n")
    add("## Targets\n")
    add("| target | measured | verdict |")
    add("|---|---|---|")
    for name, measured, verdict in R["targets"]:
        add("| %s | %s | %s |" % (name, measured, verdict))
    add("")
    if "perhit" in R:
        perhit(ctx, R, depths, K, add)
    if R.get("hits"):
        hits.render(R, spread, add)
    if "startup" in R:
        startup(ctx, R, add)
    if R.get("probes"):
        probes(R, add)
    if "sym" in R:
        sym(ctx, R, add)
    if "delivery" in R:
        delivery(ctx, R, K, add)
    if "faultin" in R:
        faultin(ctx, R, K, add)
    if R.get("deep"):
        deep(R, K, add)
    limits(ctx, R, add)
    method(ctx, R, K, add)
    add("## The table `make bench` printed\n")
    add("```")
    add(table)
    add("```")
    return "\n".join(out) + "\n"


def perhit(ctx, R, depths, K, add):
    ph, fits = R["perhit"], R["fits"]
    rows = ph["rows"]
    bare = rows["wr_empty"]["quiet"][0]
    add("## 1. Per-hit cost\n")
    add("The fixture `bench/hotloop.c` (built `-O2 -fomit-frame-pointer`) recurses %d levels "
        "deep and then calls `wr_bench_hot()` in a tight loop; the function opens with "
        "`push %%rbx`, which uprobes emulate.  Per hit = (loop time traced − untraced) / N, "
        "with the probed process on CPU 0 and the tracer on CPU 1.  *quiet*: the tracer's "
        "process is stopped while the %d calls run and drains the buffered events "
        "afterwards (events lost in quiet rounds, all configurations: %s); this is the "
        "headline.  *live*: %d calls while the tracer consumes, right after the quiet rounds "
        "of the same repetition; *live ÷ quiet* is that ratio taken within each repetition "
        "(its median is the live target's figure: drift between repetitions moves both "
        "alike).  *BPF* is run time per "
        "program run from `kernel.bpf_stats_enabled` (it includes tail-called programs).  "
        "An untraced call costs %s ns; a `getppid()` system call %s ns, for scale.\n"
        % (K["STACK_DEPTH"], K["QUIET_N"], max(r["quiet_lost"] for r in rows.values()),
           K["LIVE_N"], f1(ph["untraced"][0]),
           f0(ph["syscall_ns"][0])))
    add("| configuration | ns/hit, CPU (quiet) | × bare | ns/hit, wall (quiet) | "
        "ns/hit, CPU (live) | live ÷ quiet | lost (live) | BPF ns/run |")
    add("|---|---|---|---|---|---|---|---|")
    for key, r in rows.items():
        add("| %s | %s | %.2f | %s | %s | %s | %s | %s |" % (
            r["label"], spread(r["quiet"]), r["quiet"][0] / bare, spread(r["quiet_wall"]),
            spread(r["live"]), spread(r["live_ratio"], fmt=f2) if r.get("live_ratio") else "–",
            pct(r["live_lost_frac"]) if r["live_lost_frac"] else "–",
            spread(r["bpf"]) if r["bpf"] else "–"))
    add("")
    add("Linear fits over bt depths %s: %s ns per extra frame on the traced thread "
        "(intercept %s ns), %s ns per frame inside BPF (%s ns over depths ≥ 16).\n"
        % (", ".join(str(d) for d in depths), f1(fits["quiet"][1]), f0(fits["quiet"][0]),
           f1(fits["bpf"][1]), f1(fits["bpf_deep"][1])))
    add("![ns per hit against bt depth](performance.png)\n")
    bs = ph.get("bpftrace_stack") or []
    ws = ph.get("wraith_stack") or {}
    named = sum(1 for f in bs if "wr_bench" in f)
    add("Correctness on this code, one hit each: wraith's `bt` returned %s frames (status "
        "%s), all but the outermost named; bpftrace's `ustack` returned %d frame%s, %d of "
        "them in the fixture's functions (`%s`).  A frame-pointer walk cannot follow "
        "`-fomit-frame-pointer` code, so bpftrace's cost buys a wrong stack here.\n"
        % (ws.get("frame_count", "?"), ws.get("status", "?"), len(bs), "" if len(bs) == 1
           else "s", named, " | ".join(bs[:3]) or "nothing"))
    it = ph["interference"]
    med = lambda v: sorted(v)[len(v) // 2]
    add("Does work on the tracer's CPU slow the traced one?  A bare bpftrace uprobe costs %s "
        "ns of CPU time (%s ns wall) with CPU 1 idle and %s ns (%s ns wall) with a busy loop "
        "pinned to CPU 1.  CPU time is what the probe costs the traced thread; wall time "
        "also counts other processes that the busy CPU pushes onto CPU 0.\n"
        % (f0(med(it["idle"])), f0(med(it["idle_wall"])), f0(med(it["busy"])),
           f0(med(it["busy_wall"]))))
    add("## 2. Time inside BPF\n")
    step = rows["wr_bt128"]["by_name"].get("wr_bt_step", (0, 0))
    add("`bpftool prog show` after a depth-128 run: the probe program counted every hit, the "
        "step program `wr_bt_step` %d runs: a tail call does not pass through the kernel's "
        "statistics wrapper, so the probe's run time already holds its step program.  Cost "
        "per frame between consecutive depths (difference of the BPF medians):\n" % step[0])
    add("| depths | frames added | ns per added frame |")
    add("|---|---|---|")
    for a, b in zip(depths, depths[1:]):
        ba, bb = rows["wr_bt%d" % a]["bpf"][0], rows["wr_bt%d" % b]["bpf"][0]
        add("| %d → %d | %d | %s |" % (a, b, b - a, f0((bb - ba) / (b - a))))
    add("")
    add("The probe program only reserves the backtrace and takes the registers; one tail call "
        "hands the event to `wr_bt_step`, which unwinds every frame in a single `bpf_loop()` "
        "and outputs the event.  The verifier turns each `bpf_loop()` into a plain loop that "
        "calls its callback directly, and inlines lookups in per-CPU arrays.  The walk takes "
        "its process's mappings from the slot this CPU's last walk used when the slot names "
        "the process (an inlined array lookup), and asks a hash map only otherwise (a helper "
        "call, 35-45 ns on the AMD host).  A frame first "
        "looks in a per-CPU cache keyed by (return address, tgid) and checked against the "
        "generation of the process's mappings: a hit gives the module and the rule at once, "
        "a miss costs a binary search of the process's executable mappings and one of the "
        "module's rows (a helper call per step, about log2(rows) + 1 steps).  The fixture's "
        "call sites miss once per CPU and hit from then on.  The return address (and rbp "
        "where a frame saved it) is read from a copy of the stack, from just below the first "
        "word the walk needs: 1 KiB for a walk's first copy and twice the last one's for "
        "each after it (at most 8 KiB), up to the main thread's stack top, or on another "
        "thread's stack to the end of that word's page (never into the next, which may be "
        "past the stack's end: a copy that runs into a missing page faults and costs about "
        "a microsecond); one `bpf_probe_read_user` refills it when a frame's slots lie "
        "outside it, so the fixture's small frames share a copy between a dozen of them.  A "
        "copy costs about as much per KiB as it costs to start (a copy to the end of the page "
        "cost 50-130 ns, by where in its page the stack lay), so a small first copy serves "
        "most walks and does not depend on the stack's place in its page.  The frame cache is direct-mapped, indexed by a multiplicative hash of the "
        "address.  A walk is a function of the registers it starts from, the process's "
        "mappings and the stack words it reads, so each CPU keeps the last walk it finished "
        "with every word it read (up to 32 frames and 64 words): a walk that starts from the "
        "same registers in the same generation of mappings copies just the span of stack "
        "those words lie in, compares them, and when all are unchanged takes the kept "
        "frames and end status instead of unwinding again; the hot loop's hits all do, "
        "and a word that differs (another caller, another return address) sends the walk "
        "the long way, which is then kept.  A lone `bt` whose walk is taken so runs no "
        "`bpf_loop()` callback, and its walk no helper call but the stack copy: on a host "
        "whose every return goes through a thunk (the AMD host's SRSO safe RET), a callback "
        "costs 10-15 ns and a helper call 20-50.  `count bt` then counts the stack in this "
        "CPU's slot for it, a direct-mapped array of (probe, stack, key, count) indexed by the "
        "stack's hash, with inlined lookups; only a stack whose slot holds another is "
        "counted in the hash map (a helper call, about 50 ns here), and userspace adds up a "
        "key's counts from both.  The first frames of a hit cost more "
        "than later ones although they do the same work, which fits each hit starting with "
        "cold caches and branch predictors after the trip through the uprobe trap.\n")


def probes(R, add):
    add("## Many probes\n")
    add("1,000 probes on the fixture, `trace wr_bench_hot { print \"pN {}\", $pid; }` a "
        "thousand times (one shape: one program, attached a thousand times with each probe's "
        "id as its cookie) and with `$pid + N % 10` (ten programs): from exec to `wraith: "
        "tracing` (every probe attached and started), and from SIGINT to exit (every probe "
        "detached).  Where the kernel has multi-uprobe links (Linux 6.6 on) each site is one "
        "link, made without a perf event; closing a link waits for RCU grace periods, and "
        "wraith closes a batch of links at once so that they share them (see "
        "src/runtime/ulink.h).\n")
    add("| probes | ready, s | stopped, s |")
    add("|---|---|---|")
    for name, d in R["probes"].items():
        add("| %s | %s | %s |" % (name, spread(d["ready"], fmt=f2), spread(d["stop"], fmt=f2)))
    add("")


def startup(ctx, R, add):
    st = R["startup"]
    add("## 3. Start-up\n")
    add("Time from exec of `wraith -p PID -s 'trace wr_bench_hot { bt; }'` to its status line "
        "`wraith: tracing ...` on stderr (printed once every probe is attached), on the "
        "fixture when it maps only libc, when it has also dlopen()ed %s, and on the demo "
        "service with the demo script (`scripts/demo/demo.ws`); and with a `file:line` probe "
        "(`trace FILE:LINE { bt; }`) on two big programs: `python3.11d` (Debian's "
        "python3.11-dbg, its own DWARF) and a program bench/genbig.py generates and "
        "bench.mk builds `-O3 -flto` (160 units, 14,400 functions); and on that program "
        "a probe of many sites, `trace big_inlined { print \"{} {}\", v, site; }`, a "
        "function -flto inlines at 400 places, each site reading its own values.  "
        "*exec alone* is "
        "`wraith --version` (process start and dynamic linking); *dry run* adds resolving "
        "and compiling (`--dry-run`); the rest is loading, verifying, building and installing "
        "the CFI maps, and attaching.  wraith runs unpinned here, as a user runs it: it loads "
        "the base object (maps and the step program, which the verifier checks) on a second "
        "thread while the probes compile, so its CPU time can exceed its wall time.\n"
        % os.path.basename(ctx.biglib))
    add("| process | executable modules | CFI rows | ready, ms | dry run, ms | exec alone, ms | "
        "CFI extraction, ms (sum of medians) |")
    add("|---|---|---|---|---|---|---|")
    names = (("small", "fixture, libc only"), ("big", "fixture + " + os.path.basename(ctx.biglib)),
             ("demo", "demo: scripts/demo/kvservice with demo.ws"))
    names += tuple((k, st[k]["name"]) for k in ("line_py", "line_big", "sites_big") if k in st)
    for key, name in [n for n in names if n[0] in st]:
        t = st[key]
        add("| %s | %d | %s | %s | %s | %s | %s |" % (
            name, len(t["modules"]), f0(t["rows"]), spread(t["ready"], 1e3),
            spread(t["dry"], 1e3), spread(t["exec"], 1e3), f1(t["extract_s"] * 1e3)))
        if t.get("ready_cpu"):
            add("| %s, CPU time of wraith | | | %s | %s | %s | |" % (
                name, spread(t["ready_cpu"], 1e3), spread(t["dry_cpu"], 1e3),
                spread(t["exec_cpu"], 1e3)))
        if t.get("ready_warm"):
            add("| %s, probe cache warm | | | %s | | | |" % (name, spread(t["ready_warm"], 1e3)))
            add("| %s, probe cache warm, CPU time of wraith | | | %s | | | |" % (
                name, spread(t["ready_warm_cpu"], 1e3)))
    add("")
    add("Wall time is what the target asks for; wraith's CPU time (user + system, from "
        "wait4) is shown under it because it does not count time the machine gave to other "
        "work.  The first rows of each process are *cold*: every run has a new, empty probe "
        "cache (`--probe-cache-dir`), so it compiles its probes with LLVM (and stores them); "
        "dry runs are cold too.  *Probe cache warm* rows run with a cache that one earlier "
        "run against the same process filled, as when a script is started again: the "
        "probes' objects come from it, and LLVM's passes and BPF emission are skipped (the "
        "probe is still lowered once for its shape key, and the kernel still verifies it).  "
        "A new process of the same program hits as well (which process a probe takes rides "
        "in its uprobe's cookie, not in its program); the kernel BTF cut, also kept there, "
        "hits for any process, and so do the names of each module's globals (which spare a "
        "later run a module's DWARF when a name is no global of it).\n")
    prof = st.get("profile")
    if prof:
        import run as _run
        add("Where one start-up of the libc-only case spends its on-CPU time (`perf record "
            "--call-graph dwarf`, %s samples; inclusive shares, so nested rows overlap; one "
            "profile, not a median):\n" % prof["samples"])
        add("| function | what it is | share of samples |")
        add("|---|---|---|")
        for sym_name, what in _run.PROFILE_SYMBOLS:
            if sym_name not in prof["shares"]:
                add("| `%s` | %s | not profiled in this run |" % (sym_name, what))
                continue
            v = prof["shares"][sym_name]
            add("| `%s` | %s | %s |" % (sym_name, what, "< 0.5 %" if v is None else "%.1f %%" % v))
        add("")
    add("CFI extraction (`cfi_table_extract`, bench/microbench.c, each repetition on a freshly "
        "opened module), the modules with the most rows:\n")
    add("| module | FDEs | rows | rules | rows/s | bytes/row | first call in a process, ms |")
    add("|---|---|---|---|---|---|---|")
    big = sorted(st["cfi"].items(), key=lambda kv: -kv[1]["rows"])
    for path, c in big[:6]:
        add("| %s | %s | %s | %s | %s | %s | %s |" % (
            os.path.basename(path), f0(c["fdes"]), f0(c["rows"]), f0(c["rules"]),
            spread(c["rows_per_s"], 1e-6, f2, " M"), f2(c["bytes"] / max(c["rows"], 1)),
            f1(c["first_s"] * 1e3)))
    add("")
    t = st["big"]
    ml = t.get("memlock") or {}
    rows_ml, rules_ml = ml.get("wr_rows", [0, 0]), ml.get("wr_rules", [0, 0])
    add("Map memory: rows are 8 bytes and rules 16, each module's maps sized exactly, so the "
        "process with %s holds %s rows and %s rules = %s bytes, %s bytes per row.  "
        "Cross-check while wraith ran: `bpftool map show` lists maps named wr_rows with %s "
        "entries and %s bytes of memlock, and wr_rules with %s entries and %s bytes; %s bytes "
        "per row counting memlock, which rounds each map up to whole pages (these maps are "
        "mmapable).\n"
        % (os.path.basename(ctx.biglib), f0(t["rows"]), f0(t["rules"]), f0(t["bytes"]),
           f2(t["bytes"] / max(t["rows"], 1)), f0(rows_ml[1]), f0(rows_ml[0]), f0(rules_ml[1]),
           f0(rules_ml[0]), f2((rows_ml[0] + rules_ml[0]) / max(rows_ml[1], 1))))


def sym(ctx, R, add):
    add("## 4. Symbolization\n")
    add("`dw_symbolize()` on the start pcs of a module's CFI rows (5,000 spread over the "
        "module, each a distinct pc), on a freshly opened module: *first use* is the first "
        "call (loads DWARF), *cold* the rest of the first pass, *warm* 20 more passes over "
        "the same pcs (the per-module pc cache).\n")
    add("| module | pcs | frames (with inline) | first use, ms | cold, frames/s | "
        "warm, frames/s |")
    add("|---|---|---|---|---|---|")
    for path, s in R["sym"].items():
        add("| %s | %s | %s | %s | %s | %s |" % (
            os.path.basename(path), f0(s["pcs"]), f0(s["frames"]), spread(s["first_s"], 1e3),
            spread(s["cold_per_s"]), spread(s["warm_per_s"], 1e-6, f1, " M")))
    add("")


def delivery(ctx, R, K, add):
    add("## 5. Event delivery\n")
    add("`trace wr_bench_hot { print \"x {}\", $pid; bt; }` at depth 16, NDJSON to a file, "
        "the fixture calling at a steady offered rate for %.1f s per rate (busy-waiting "
        "between calls), then unpaced (*max*); received = lines wraith wrote.\n"
        % K["DELIVERY_SECONDS"])
    add("| offered rate | achieved, ringbuf | loss, ringbuf | achieved, perf | loss, perf |")
    add("|---|---|---|---|---|")
    dl = R["delivery"]
    for rate in list(K["RATES"]) + ["max"]:
        rb, pf = dl["ringbuf"][rate], dl["perf"][rate]
        add("| %s/s | %s/s | %s | %s/s | %s |" % (
            rate if rate == "max" else f0(rate), f0(rb["achieved"][0]), pct(rb["loss"]),
            f0(pf["achieved"][0]), pct(pf["loss"])))
    add("")
    for tp in ("ringbuf", "perf"):
        ok, first_loss = no_loss_rates(dl[tp])
        add("- %s: no loss in any repetition up to %s events/s achieved; %s\n" % (
            tp, f0(ok) if ok else "none of the rates",
            "loss begins at %s events/s." % f0(first_loss) if first_loss else
            "no loss at any rate measured."))


def faultin(ctx, R, K, add):
    fi = R["faultin"]
    rows = fi["rows"]
    bare = rows["bpft_empty"]["quiet"][0]
    add("## 6. Sleepable probes (`--fault-in`)\n")
    add("The same fixture and method as section 1 (quiet rounds, CPU time of the traced "
        "thread, %d calls per round): an empty probe and one printing a resident string "
        "(`print wr_bench_text;`), each as a plain and as a sleepable program, beside a bare "
        "bpftrace uprobe.  No read here faults, so the difference is what being sleepable "
        "costs every hit; a read that does fault costs the page fault on top.  An untraced "
        "call costs %s ns.\n" % (K["QUIET_N"], f1(fi["untraced"][0])))
    add("| configuration | ns/hit, CPU (quiet) | × bare | BPF ns/run |")
    add("|---|---|---|---|")
    for key, r in rows.items():
        add("| %s | %s | %.2f | %s |" % (r["label"], spread(r["quiet"]), r["quiet"][0] / bare,
                                        spread(r["bpf"]) if r["bpf"] else "–"))
    add("")
    d_empty = rows["wr_empty_s"]["quiet"][0] - rows["wr_empty"]["quiet"][0]
    d_str = rows["wr_str_s"]["quiet"][0] - rows["wr_str"]["quiet"][0]
    add("Sleepable minus plain: %s ns per hit for the empty probe, %s ns for the string "
        "(%s and %s of the plain probe's cost).\n"
        % (f0(d_empty), f0(d_str), "%+.0f%%" % (100 * d_empty / rows["wr_empty"]["quiet"][0]),
           "%+.0f%%" % (100 * d_str / rows["wr_str"]["quiet"][0])))
    add("**The default is off.**  Being sleepable costs a hit little (the differences above lie within the spread of the runs), so cost alone would allow it on.  It stays off for what it changes: a read that faults makes the traced thread wait for the fault inside the traced function (a swap-in or a read from disk takes milliseconds), pages the program never touched become resident, other hits on that CPU are dropped while a probe waits, and it needs Linux 6.1 or later and the ring buffer transport.  A tracer's default should not change what it observes; turn `--fault-in` on when a value shows a read error for memory the program does have.\n")


def deep(R, K, add):
    d = R["deep"]
    add("## 7. Deep backtraces\n")
    add("BPF time of one hit with `bt` at depths %s, on the same fixture recursing %d levels "
        "(a stack deeper than 1,024 frames), %d hits a round with the tracer stopped, then "
        "drained; from `kernel.bpf_stats_enabled`, the probe program's run time, which holds "
        "its tail-called step program.  A new wraith starts for every round.\n"
        % (", ".join(str(x) for x in K["DEEP_DEPTHS"]), K["DEEP_STACK"], K["DEEP_N"]))
    add("| `--backtrace-depth` | ns per hit in BPF | ns per frame | events received |")
    add("|---|---|---|---|")
    for depth in K["DEEP_DEPTHS"]:
        r = d.get(depth) or d.get(str(depth))
        if not r or not r["hit"]:
            add("| %d | no measurement | | |" % depth)
            continue
        add("| %d | %s | %s | %d of %d |" % (depth, spread(r["hit"]),
                                             spread(r["per_frame"], fmt=f1), r["received"],
                                             K["DEEP_N"]))
    add("")
    if d.get("fit"):
        add("A linear fit over the depths: %s ns per extra frame, %s ns fixed.\n"
            % (f1(d["fit"][1]), f0(d["fit"][0])))
    add("The walk takes recursion in runs: a frame at the previous frame's address whose rule "
        "has the plain form (CFA from rsp or rbp plus an offset, return address at the CFA) "
        "unwinds with up to 7 more like it in one iteration of the frame loop (for `count bt` "
        "too, hashing each frame of the run into the stack's identity), and the stack copy "
        "takes 1 KiB, then twice as much each time, up to 8 KiB.  Most of a deep frame's cost is writing its "
        "16 bytes into the ring buffer, and on this virtual machine the first write into each "
        "4 KiB page of a new ring cost about 12 µs (the host backs guest memory on first "
        "write): a depth-1024 hit cost about 45 ns a frame in a fresh ring and 5 ns once the "
        "ring had been written.  wraith therefore writes the whole ring once "
        "(`wr_ring_warm`, run with `BPF_PROG_TEST_RUN`: 64 KiB records reserved, written and "
        "discarded, up to the ring's size or 64 MiB), after the probes attach, 1 MiB at a "
        "time from its reading loop while the ring is idle, so it is not on the way to "
        "`ready`; each round here lets the tracer run 0.3 s before stopping it, and hits in "
        "a tracer's first tens of milliseconds may still find unwritten pages.  The walk is complete at every depth "
        "and `truncated` reports the depth it reached.\n")


def no_loss_rates(per):
    ok, first = None, None
    for rate, d in per.items():
        rate_v = d["achieved"][0]
        if d["max_loss"] == 0:
            ok = rate_v if ok is None or rate_v > ok else ok
        elif first is None or rate_v < first:
            first = rate_v
    return ok, first


def limits(ctx, R, add):
    add("## What limits the misses\n")
    missed = {t[0] for t in R["targets"] if t[2].startswith("missed")}
    if not missed:
        add("Every target was met in this run.\n")
        return
    ph, st, fits = R.get("perhit"), R.get("startup"), R.get("fits")
    if ph and any(t.startswith(("bt depth", "every bt", "<= 60 ns")) for t in missed):
        per_hit_limits(ph, fits, add, (R.get("helpers") or {}).get("rows") or {})
    if any(t.startswith(("count bt <=", "count bt: rounds")) for t in missed):
        hits.count_limits(R, add)
    if any(t.startswith(("the empty probe", 'print "x" <=')) for t in missed):
        hits.floor_limits(R, add)
    if any(t.startswith("bt, the hot loop's whole stack") for t in missed):
        hits.bt_floor_limits(R, add)
    if any(t.startswith('print "x" on a real program') and "with work between" in t for t in missed):
        hits.real_limits(R, add)
    if st and any(t.startswith("ready") for t in missed):
        startup_limits(ctx, R, st, add)
    if st and any(t.startswith("CFI extraction") for t in missed):
        big = st["cfi"].get(ctx.biglib)
        add("**CFI extraction** (%s M rows/s on %s, %s rows from %s FDEs): the extractor runs "
            "each FDE program once; its remaining costs are growing the row and FDE arrays "
            "(each growth touches fresh pages, and a page fault is expensive in this VM) and "
            "interning a rule per row.  Sizing the arrays up front (`.eh_frame`'s size bounds "
            "the row count) and caching the last interned rule would cut both.\n"
            % (f2(big["rows_per_s"][0] / 1e6), os.path.basename(ctx.biglib), f0(big["rows"]),
               f0(big["fdes"])))


def output_by_size(rows):
    """What this run's helpers section says an event's size costs to
    output (bench/helpers.bpf.c's ringbuf_output_32 and _256), as a
    sentence; "" when it did not run."""
    small, big = rows.get("ringbuf_output_32"), rows.get("ringbuf_output_256")
    if not small or not big:
        return ""
    return ("  What an event's size costs to output, from this run's `helpers` section "
            "(section 2): `bpf_ringbuf_output()` of 32 bytes adds %+.0f ns a run to an empty "
            "program, of 256 bytes %+.0f." % (small["over"], big["over"]))


def per_hit_limits(ph, fits, add, helper_rows):
    rows = ph["rows"]
    bare = rows["wr_empty"]
    b16, b128 = rows["wr_bt16"], rows["wr_bt128"]
    add("**bt against a bare uprobe.**  A bare hit costs %s ns of the traced thread's time, "
        "of which %s ns run inside BPF (wraith's empty probe still builds and outputs a "
        "32-byte event; bpftrace's empty program runs %s ns).  A `bt` adds %s ns inside BPF at "
        "depth 16 and %s ns at depth 128 (%s and %s of what it adds to the whole hit, %s "
        "and %s ns; a share above 100%% means the two medians come from noisy runs).  So "
        "the targets come down to time inside BPF: 1.25x a %s ns hit leaves "
        "%s ns for 16 frames (%s ns a frame, the cold first frames included); 2x leaves %s "
        "ns for 128 frames (%s ns a frame).\n"
        % (f0(bare["quiet"][0]), f0(bare["bpf"][0]), f0(rows["bpft_empty"]["bpf"][0]),
           f0(b16["bpf"][0] - bare["bpf"][0]), f0(b128["bpf"][0] - bare["bpf"][0]),
           share(b16["bpf"][0] - bare["bpf"][0], b16["quiet"][0] - bare["quiet"][0]),
           share(b128["bpf"][0] - bare["bpf"][0], b128["quiet"][0] - bare["quiet"][0]),
           f0(b16["quiet"][0] - bare["quiet"][0]), f0(b128["quiet"][0] - bare["quiet"][0]),
           f0(bare["quiet"][0]), f0(0.25 * bare["quiet"][0]), f0(0.25 * bare["quiet"][0] / 16),
           f0(bare["quiet"][0]), f0(bare["quiet"][0] / 128)))
    add("**Inside BPF** (%s ns a frame at depth ≥ 16; see the table in section 2) the frames "
        "of this fixture are already cache hits with a shared stack copy; what is left is a "
        "fixed cost per `bt` (reserving it, the tail call, the first frames on cold caches) "
        "and the event's size in the ring buffer.  The empty probe spends %s ns where "
        "bpftrace's spends %s, mostly the timestamp and the ring-buffer output every event "
        "needs.%s  The per-hit ratios move by about ±0.1 between runs.\n"
        % (f1(fits["bpf_deep"][1]), f0(bare["bpf"][0]), f0(rows["bpft_empty"]["bpf"][0]),
           output_by_size(helper_rows)))
    perf = rows["perf_dwarf"]["quiet"][0]
    worse = [d for d in (1, 3, 4, 16, 64, 128) if "wr_bt%d" % d in rows
             and rows["wr_bt%d" % d]["quiet"][0] > perf]
    if worse:
        add("**Against perf.**  `perf record --call-graph dwarf` costs %s ns a hit: it copies "
            "8 KiB of stack per sample and unwinds later, a cost that does not grow with depth.  "
            "wraith costs more at depth %s, where the frames it unwinds in the kernel and "
            "the output of its event add up to more than perf's one copy.\n"
            % (f0(perf), ", ".join(str(d) for d in worse)))


def startup_limits(ctx, R, st, add):
    s = st["small"]
    exec_ms, dry_ms, ready_ms = s["exec"][0] * 1e3, s["dry"][0] * 1e3, s["ready"][0] * 1e3
    libc_first = None
    for path, v in (R.get("sym") or {}).items():
        if os.path.basename(path).startswith("libc.so"):
            libc_first = v["first_s"][0] * 1e3
    if s.get("ready_cpu"):
        exec_ms, dry_ms = s["exec_cpu"][0] * 1e3, s["dry_cpu"][0] * 1e3
        cpu_ready = s["ready_cpu"][0] * 1e3
        basis = "CPU time, which other work on the machine does not inflate"
    else:
        cpu_ready, basis = ready_ms, "wall time"
    add("**Start-up** (%s ms wall for the libc-only process against 60 ms; %s ms of "
        "wraith's CPU time).  In %s: starting the process alone takes %s ms (`wraith "
        "--version`); resolving and compiling add %s ms (`--dry-run`); loading, verifying, "
        "installing CFI and attaching add %s ms."
        % (f0(ready_ms), f0(cpu_ready), basis, f0(exec_ms), f0(dry_ms - exec_ms),
           f0(cpu_ready - dry_ms)))
    fl = st.get("first_libdw")
    if fl and fl.get("later_s") is not None and fl["first_s"] - fl["later_s"] > 0.01:
        add("  The first CFI extraction in a process takes %s ms against %s ms later for the "
            "same module%s."
            % (f1(fl["first_s"] * 1e3), f2(fl["later_s"] * 1e3),
               " (libdw loads its debuginfod client, with the ~30 libraries behind it, on its "
               "first debug-info search)" if fl["loaded"] else ""))
    if libc_first is not None:
        add("  Opening libc's DWARF (its separate debug file) costs %s ms on first use; the "
            "function pattern is looked up in every module's DWARF, libc's included, although "
            "libc does not define the function." % f0(libc_first))
    add("  Already done: LLVM is linked statically, without the pass builder that named "
        "every pass LLVM has (the six passes a probe needs are named one by one), and starts "
        "on a thread of its own at launch; libstdc++ and the other libraries are linked in "
        "too (only the C library is loaded at start) and the relative relocations are "
        "packed; one madvise() maps the executable's writable data before LLVM's static "
        "constructors write it, and malloc takes its heap in transparent huge pages; the "
        "probe template is built per transport and `--fault-in` setting without variable "
        "locations, probe objects carry no DWARF (BTF only), and a probe's loops over the "
        "backtrace slots stop at the number of `bt` statements it has (`bt;`: about 450 "
        "instructions, 850 before); in script mode the base object starts loading before "
        "the target opens, with only the maps the session can use (one process's mappings "
        "with -p, no stack-count maps without `count bt`, no per-CPU arrays), its CO-RE "
        "relocations resolved against a kernel BTF cut down to the structs they name; the "
        "verifier walks the step program in about 22,200 instructions (32,700 before its "
        "stack copy went under bpf_loop() and its replay loop stopped narrowing its count), "
        "and in script mode the base object leaves out what the script cannot reach: a "
        "`bt` without `count bt` or frame values takes a lean step program (about 19,700), "
        "a script without `bt` none; "
        "every site's uprobe registers while the probes compile (the kernel's first uprobe "
        "registration after a quiet spell waits for an RCU grace period, 5-55 ms here); "
        "the ring buffer is written after the probes attach; unwind tables are extracted on "
        "a third thread, and big modules without a probe site go in after the probes "
        "attach; the unwind tables go into the kernel's two arrays of maps in one batch "
        "each, side by side, and while the verifier checks the base object (the session "
        "makes those maps first and the base object takes them): every write into an array "
        "of maps waits for an RCU grace period (5-20 ms here), and two a module took a "
        "libc-only start 105-120 ms after the base object was up; file:line lookups read only the units whose raw line tables can hold the "
        "line; compiled probes, the kernel BTF cut and the names of each module's globals "
        "are kept in a cache on disk, which a "
        "script started again hits, against the same process or a new one of the same "
        "program (the warm rows).  "
        "What is left, on 2 CPUs: the process start (%s ms of CPU); cold, the compile "
        "(LLVM's set-up and the template parse on the launch thread, about 13 ms; the "
        "passes, about 4.5 ms; BPF instruction selection and emission, about 12.5 ms); "
        "warm, the kernel side (the base object's maps, among them the ring buffer, whose "
        "pages the kernel allocates and clears: 8-23 ms of the kernel thread here, and its "
        "step program's verification, about 30 ms of CPU); then the probe's own "
        "verification (1-3 ms).  "
        "Ways to cut more:%s load only the template bodies a probe reaches; verify the "
        "step program's frame callback in fewer states.\n"
        % (f0(exec_ms), " give libdwfl a find_debuginfo callback that searches the local "
           "debug paths without loading debuginfod;" if fl and fl.get("loaded") else ""))
    big = st.get("big")
    if big and big["ready"][0] * 1e3 > 150:
        add("**Start-up with libLLVM.so.19.1 mapped** (%s ms wall against 150 ms): big "
            "modules with no probe site already go into the kernel after the probes attach "
            "(walks through them are finished in user space meanwhile), and the loader thread "
            "reads them at nice 19 until the probes are attached, so that on 2 CPUs it does not "
            "take the CPU the compile and the verifier need; what remains is the libc-only path "
            "above plus opening the other modules and looking the function up in their symbol "
            "tables.\n"
            % f0(big["ready"][0] * 1e3))
    # measured by hand (A/B runs of the commits that made them), not by
    # this run: kept as they were written
    add(MANY_SITES + "\n")
    add(GLOBAL_NAMES + "\n")


MANY_SITES = '**A probe of many sites** (`trace big_inlined`, 595 inlined sites in the generated -O3 -flto program; Redis -O3 -flto `trace sdsnewlen { print "{}", len; }`, 379).  Finding the sites asks each site\'s unit for a few rows of its line table (the row at the site, its function\'s prologue_end rows), and libdw 0.188\'s `dwarf_getsrclines()` decoded the unit\'s whole table into rows allocated one by one and sorted them through a callback: the generated program\'s 218 tables hold 1.4 M rows, and that was a third of big_inlined\'s dry run.  wraith now reads a site\'s table itself (src/dwarf/linerows.c: one array in libdw\'s order, no sort when the rows come in order; libdw where it cannot read a table exactly; test_resolve checks every row against libdw\'s), for the site search, for symbolization and for an inlined call\'s file (DW_AT_call_file indexes the same file list, which libdw makes by decoding the whole table too).  Measured on 2026-12-07 under other helpers\' builds and test suites (CPU ms of wraith, median of 9 runs alternated with the binary before all of it): big_inlined ready 320 (307-481) -> 228 (211-241), dry run 225 (218-353) -> 132 (126-211), load 15-40; Redis\'s probe, whose tables are smaller, dry run 243 (236-257) -> 239 (225-317), load 14-16 (11 runs).  What a profile (`perf record --call-graph dwarf`) of the Redis probe shows is left, of about 420 ms CPU to ready: compiling the sites\' forms into one program with LLVM (about 65 ms, most of it BPF instruction selection and emission), looking `len` up as a global in every module once no site\'s scopes have it (about 55 ms: libdw decompresses all of libc\'s, libm\'s and ld.so\'s compressed debug sections, 13 MB, to index their globals; gdb\'s order requires asking them before a caller\'s frame; a run after the first now skips them, below), the function index (about 30 ms), the call-site index for entry values (25 ms) and the sites\' scope chains (20 ms).'

GLOBAL_NAMES = '**Global names kept between runs.**  A name no scope of a probe\'s site declares is looked up as a global in every module, in gdb\'s order, and indexing a module\'s globals opens its DWARF: for libc, libm and ld.so libdw first decompresses every compressed section of their separate debug files (13 MB), about 50 ms of CPU of Redis -O3 -flto `trace sdsnewlen { print "{}", len; }` (379 sites), whose `len` no site declares.  That is now paid once per debug file: once a module\'s globals are indexed, the sorted list of their names goes into the probe cache\'s directory, keyed by wraith\'s and the module\'s build-ids and the identity (path, device, inode, size, modification time) of the file the DWARF comes from (src/dwarf/globalnames.c), and a later run answers a plain name the list lacks without opening that DWARF; a name on the list, a qualified one or no list take the index as before (test_vars checks both answers equal for every name the DIEs of the corpus builds, the vars fixture and libc\'s debug file have).  Measured on 2026-12-07 with other helpers\' test suites running (CPU ms of wraith, median of 7-9 runs alternated with the binary before): Redis\'s probe with a warm probe cache, ready 453 (297-516) -> 269 (229-326) (load 31-69), dry run 282 (248-358) -> 177 (173-318) (load 34-36); its peak RSS 92 -> 65 MB; cold (a new cache directory each run, which now also stores the lists), ready 359 (324-495) -> 378 (340-452), load 59-91, within that load\'s noise; a first run still pays the whole lookup.'


def share(part, whole):
    if not whole or whole <= 0:
        return "n/a"
    return "%.0f%%" % (100.0 * part / whole)


def method(ctx, R, K, add):
    add("## Method\n")
    add("- Per-hit figures are CPU time of the traced thread (`CLOCK_THREAD_CPUTIME_ID` around "
        "the loop; kernel time in uprobe handlers and BPF is charged to it), minus the same "
        "loop untraced.  Wall time is shown next to it; it also counts the time slices of "
        "any other process that runs on CPU 0 meanwhile, so it is only as good as the "
        "machine is idle.")
    add("- Each repetition starts each tracer afresh (order rotated between repetitions), "
        "runs %d quiet rounds of %d calls (median taken) and one live round of %d calls."
        % (K["QUIET_ROUNDS"], K["QUIET_N"], K["LIVE_N"]))
    add("- bpftrace: `uprobe:BIN:wr_bench_hot {}` and `{ @[ustack] = count(); }`; perf: "
        "`perf probe -x BIN wr_bench_hot` then `perf record -e <that event> --call-graph "
        "dwarf -m 16M -p PID`.  All three probe the same address (the function's entry).")
    hp = (R.get("helpers") or {}).get("rows", {}).get("empty")
    add("- `kernel.bpf_stats_enabled` is on during section 1 (it adds to each program run, for "
        "every BPF tool alike: %s) and restored afterwards."
        % ("an empty program reads %.0f ns a run on this host, section 2's *What every program "
           "and every event pay*" % hp["bpf"][0] if hp else "about 20 ns on an Intel host, "
           "`make bench-helpers` measures it here"))
    add("- What each piece of a hit costs (section `helpers`, `make bench-helpers`): "
        "bench/helpers.py times tiny programs of `bench/helpers.bpf.c` on the same hot loop, "
        "one helper call, lookup, read or output each, against an empty program; wraith's "
        "own split by stage needs a build configured `--enable-stage-timing`.")
    add("- How far a configuration's rounds lie apart is partly the host's: on the AMD VM "
        "(measured by hand on 2026-12-07, 16-20 rounds of one tracer under load) a "
        "round's BPF time moved by up to 40-60%% from one second to the next, in bursts, "
        "whatever program ran, and a program that copies memory moved most (a 1 KiB "
        "`bpf_probe_read_user` alone on the same hits spread 41%% where `count bt` spread 40%%, "
        "the two moving together, r = 0.95; a chain of multiply-adds 14%%, r = 0.95).  So "
        "each wraith configuration on the hot loop's function runs %d more rounds with "
        "`%s` of bench/helpers.bpf.c beside it on the same hits, and `count bt`'s spread "
        "target is judged on its time relative to that reference's, round by round; its "
        "rounds in ns are shown too.  (The reference runs in the same hits, so those rounds' "
        "own figures are not the configuration's: they serve only the ratio.)"
        % (hits.ROUNDS, hits.REF_PROG))
    add("- Start-up is wall time; it includes whatever else the machine was doing.")
    add("- Reproduce: `make bench` in a configured build directory, as root.  Needs bpftool, "
        "bpftrace, perf, taskset, python3 and gnuplot (Debian: gnuplot-nox).\n")
