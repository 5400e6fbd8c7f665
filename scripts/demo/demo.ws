// wraith demo script: every lookup in the key-value store, its key, and the
// full call stack unwound inside the kernel from DWARF CFI (the demo is built
// -O2 -fomit-frame-pointer, so frame pointers would not work).
trace store_lookup {
    print "lookup {} (request #{})", key, served;
    bt;
}
