"""rust_current.py - Rust std values as today's Rust lays them out:
rstd.rs built by a current rustc of rustup's (configure's RUSTC_CURRENT,
e.g. 1.95) at opt-level 0 and 2, every value compared with that
toolchain's own rust-gdb, whose printers know these layouts (Vec and
String in RawVecInner with a niche-typed capacity, VecDeque as a first
index and a count, NonZero<T> shown as its number).  Skipped when
configure found no such toolchain (it is not in Debian's archive).
"""
import os

from wraithtest import *
import rust_std

GDB = os.environ.get("WRAITH_RUST_GDB_CURRENT")
if not GDB:
    skip("no current Rust toolchain (configure's RUSTC_CURRENT, rustup's rustc and rust-gdb)")

for v in ("cur-O0", "cur-O2"):
    # gdb 13 reads the niche of Flag::Letter's char wrong, and a HashMap's
    # order is its process's hash seed's: the fixture's own
    rust_std.compare(v, GDB, from_fixture={"bag.flags", "bag.hmap"})
rust_std.expressions("cur-O0")
rust_std.many("cur-O2")
check_no_leftovers("after the current Rust's std values")
finish()
