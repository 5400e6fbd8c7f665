"""rust_current.py - Rust as today's rustc builds it: the Rust fixtures
built by a current rustc of rustup's (configure's RUSTC_CURRENT, e.g.
1.95) at opt-level 0, 1 and 2, compared with that toolchain's own
rust-gdb as rust_std.py and rust_frames.py compare Debian's: std values,
whose printers know these layouts (Vec and String in RawVecInner with a
niche-typed capacity, VecDeque as a first index and a count, enum
variants in a String's capacity, NonZero<T> shown as its number), and
functions where Rust nests them (bt args, bt full, prints, frame names).
Skipped when configure found no such toolchain (it is not in Debian's
archive).
"""
import os

from wraithtest import *
import rust_frames
import rust_std

GDB = os.environ.get("WRAITH_RUST_GDB_CURRENT")
if not GDB:
    skip("no current Rust toolchain (configure's RUSTC_CURRENT, rustup's rustc and rust-gdb)")

for v in ("cur-O0", "cur-O2"):
    # gdb 13 reads the niche of Flag::Letter's char wrong, rust-gdb an
    # Rc<str>'s first byte as its value and a Box<str> as bytes, it has
    # no printer of Weak (wraith shows its counts), and a HashMap's order
    # is its process's hash seed's: the fixture's own
    rust_std.compare(v, GDB, from_fixture={"bag.flags", "bag.hmap", "bag.arc_str", "bag.rc_str",
                                           "bag.boxed_str", "bag.weak_rc", "bag.weak_gone", "bag.weak_none"})
rust_std.expressions("cur-O0")
# at opt-level 1 and 2 rustc 1.95 drops `self` at the entry of
# Conn::handle, where 1.63 kept it: no prints through it there
for v in ("cur-O0", "cur-O1", "cur-O2"):
    rust_frames.compare(v, GDB, prints=v.endswith("O0"))
rust_std.many("cur-O2")
check_no_leftovers("after the current Rust's std values")
finish()
