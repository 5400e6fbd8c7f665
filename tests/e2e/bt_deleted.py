"""bt_deleted.py - programs and libraries deleted or replaced on disk while
they run (a redeploy, a package upgrade: `(deleted)` in /proc/PID/maps).
wraith reads, probes and unwinds the copy the process still maps, through
/proc/PID/map_files/, and says at start-up that the file was deleted.
Three processes: a deleted executable; an executable replaced by another
build under the same name (the running image must be used, not the new
file); and a program whose two libraries, where the probe sits, were
deleted.  Each backtrace is complete and equal to gdb's on the original
files."""
import shutil
import tempfile

from bt_support import *

require_root()


def start_copy(files, run, rename=None, env_lib=False):
    """Copy fixture `files` ({fixture: name}) into a new directory, start
    `run` from there, then delete the copies (or, with `rename`, replace
    `run` by a copy of that fixture, as an upgrade renames the new file
    over the old)."""
    d = tempfile.mkdtemp(prefix="wraith-deleted-")
    for f, name in files.items():
        shutil.copy(fixture(f), os.path.join(d, name))
    env = dict(os.environ, LD_LIBRARY_PATH=d) if env_lib else None
    fx = Fixture(os.path.join(d, run), [1000, -1], env=env)
    if rename:
        shutil.copy(fixture(rename), os.path.join(d, "new"))
        os.rename(os.path.join(d, "new"), os.path.join(d, run))
    else:
        for name in files.values():
            os.unlink(os.path.join(d, name))
    return fx, d


def case(label, files, run, oracle, libs=(), rename=None, env_lib=False):
    """wraith on the running copy against gdb on the original file."""
    # Copied and started before gdb's thread forks: a child forked while a
    # copy is open for writing would make its exec fail (ETXTBSY).
    fx, d = start_copy(files, run, rename, env_lib)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, fixture(oracle), [0, 3], 1)
        try:
            res, bts = wraith_bts(fx.pid)
        finally:
            fx.stop()
            shutil.rmtree(d)
        stacks = g.result()
    ok = check(res.returncode == 0 and len(bts) == 1, "%s: wraith exits 0 with one backtrace (rc %d, %r)"
               % (label, res.returncode, res.stderr[-300:]))
    check("deleted or replaced on disk" in res.stderr,
          "%s: start-up says the file was deleted or replaced (%r)" % (label, res.stderr[:300]))
    if not ok or not check(len(stacks) == 1, "%s: gdb stopped at leaf" % label):
        return
    bt = bts[0][1]
    check(bt["status"] == "complete", "%s: complete (%s, %s)" % (label, bt["status"], bt["error"]))
    # the running copy is named as it was mapped: the executable by `run`
    for fr in bt["frames"]:
        if fr["module"] and os.path.basename(fr["module"]) == run:
            fr["module"] = oracle
    compare_stack(bt, stacks[0], own_modules(oracle, libs), "%s: frames past main equal gdb's on the "
                  "original file" % label, cut_main=False)


case("deleted executable", {"chain-O2": "chain-O2"}, "chain-O2", "chain-O2")
case("deleted executable (clang)", {"chain-clang-O2": "chain-clang-O2"}, "chain-clang-O2", "chain-clang-O2")
case("replaced executable", {"chain-O2": "app"}, "app", "chain-O2", rename="chain-O0")
libs = ("libfix_a-O2.so", "libfix_b-O2.so")
case("deleted libraries", {f: f for f in ("twolibs-O2",) + libs}, "twolibs-O2", "twolibs-O2", libs=libs,
     env_lib=True)

check_no_leftovers("after the deleted-file tests")
finish()
