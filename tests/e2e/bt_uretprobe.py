"""bt_uretprobe.py - backtraces through another tool's uretprobes.  A
uretprobe replaces the return address of the probed function on the stack
with the kernel's return trampoline (in the process's [uprobes] area) and
keeps the real one in the thread's list of return instances.  The test
places real uretprobes (perf_event_open on the uprobe PMU, as perf and
bpftrace do, no BPF program needed) on middle and outer of chain, then
traces leaf with wraith: leaf <- middle <- outer <- main, two trampolines
in the stack.  Every frame must equal gdb's on an unprobed run."""
import ctypes
import re
import struct

from bt_support import *

require_root()


def file_offset(path, symbol):
    """The file offset of `symbol`, where a uprobe on it is placed."""
    nm = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    m = re.search(r"^([0-9a-f]+) [Tt] %s$" % re.escape(symbol), nm, re.M)
    vaddr = int(m.group(1), 16)
    segs = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    for line in segs.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, va, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if va <= vaddr < va + filesz:
                return vaddr - va + off
    raise AssertionError("%s not in a loadable segment of %s" % (symbol, path))


def uretprobe(path, offset, pid):
    """An enabled uretprobe perf event on `path` at `offset` in process
    `pid`; returns its file descriptor (closing it removes the probe)."""
    dev = "/sys/bus/event_source/devices/uprobe"
    with open(dev + "/type") as f:
        pmu = int(f.read())
    with open(dev + "/format/retprobe") as f:
        bit = int(f.read().strip().split(":")[1])
    name = ctypes.create_string_buffer(path.encode())
    attr = bytearray(128)
    struct.pack_into("IIQ", attr, 0, pmu, len(attr), 1 << bit)
    struct.pack_into("QQ", attr, 56, ctypes.addressof(name), offset)  # config1, config2
    libc = ctypes.CDLL(None, use_errno=True)
    buf = (ctypes.c_char * len(attr)).from_buffer(attr)
    fd = libc.syscall(298, buf, pid, -1, -1, 8)  # perf_event_open, PERF_FLAG_FD_CLOEXEC
    if fd < 0:
        raise OSError(ctypes.get_errno(), "perf_event_open of a uretprobe failed")
    return fd


def one(v):
    binary = fixture("chain-%s" % v)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, 3], 1)
        fx = Fixture("chain-%s" % v, [1000, -1])
        fds = []
        try:
            fds = [uretprobe(binary, file_offset(binary, fn), fx.pid) for fn in ("middle", "outer")]
            # the first hit maps the [uprobes] area, where the return
            # trampoline is: from the next call on, outer's and middle's
            # return addresses are replaced
            wait_until(lambda: "[uprobes]" in open("/proc/%d/maps" % fx.pid).read(), timeout=30)
            res, bts = wraith_bts(fx.pid)
        finally:
            for fd in fds:
                os.close(fd)
            fx.stop()
        return v, binary, res, bts, g.result()


for v, binary, res, bts, stacks in parallel(one, ("O2", "O0-nopie", "clang-O2")):
    label = "chain-%s with uretprobes on middle and outer" % v
    if not check(res.returncode == 0 and len(bts) == 1 and len(stacks) == 1,
                 "%s: one backtrace from wraith, one stack from gdb (%r)" % (label, res.stderr[-300:])):
        continue
    bt = bts[0][1]
    check(bt["status"] == "complete", "%s: complete (%s, %s)" % (label, bt["status"], bt["error"]))
    compare_stack(bt, stacks[0], own_modules(binary), "%s: frames past main equal gdb's" % label,
                  cut_main=False)

check_no_leftovers("after the uretprobe test")
finish()
