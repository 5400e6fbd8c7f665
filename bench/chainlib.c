/* chainlib.c - one of the three shared libraries of the bench's deep
 * call chain: built three times (bench.mk), as libwrchain1.so,
 * libwrchain2.so and libwrchain3.so, with WR_CHAIN_LIB 1, 2, 3.
 * Libraries 1 and 2 hold seven functions that call one another, library
 * 3 five; the last of library N calls the first of library N + 1 through
 * its PLT, and library 3's last calls the probed function wr_chain_hot(),
 * in library 3 too.  bench/hotloop.c's "chain N" calls wr_chain1_0() N
 * times, so a hit there unwinds a chain of 20 frames in three libraries
 * (the deep real stack), 26 with the program's and libc's below
 * them; bench/hits.py counts them in a hit's backtrace and reports what
 * it found.  Built -O2 -fomit-frame-pointer like the hot loop: a DWARF
 * walk is needed.
 */
#define WR_CAT_(a, b, c) a##b##_##c
#define WR_CAT(a, b, c) WR_CAT_(a, b, c)
#define WR_FN(i) WR_CAT(wr_chain, WR_CHAIN_LIB, i)

volatile long wr_chain_sink;

#if WR_CHAIN_LIB == 3
__attribute__((noipa)) long wr_chain_leaf(long x)
{
	return x ^ wr_chain_sink;
}

/* The probed function: it opens with a push (x is kept across the call),
 * like wr_bench_hot(); a first instruction uprobes do not emulate is
 * stepped out of line, which costs many times the trap. */
__attribute__((noinline)) long wr_chain_hot(long x)
{
	long r = wr_chain_leaf(x);

	wr_chain_sink += r + x;
	return r;
}
#define WR_NEXT(x) wr_chain_hot(x)
#else
long WR_CAT(wr_chain, WR_CHAIN_NEXT, 0)(long x);
#define WR_NEXT(x) WR_CAT(wr_chain, WR_CHAIN_NEXT, 0)(x)
#endif

/* One real frame each: the work after the call keeps it from being a
 * tail call. */
#define WR_LINK(i, next)                                       \
	__attribute__((noinline)) long WR_FN(i)(long x)        \
	{                                                      \
		long r = next(x + i);                          \
                                                               \
		wr_chain_sink += r;                            \
		return r;                                      \
	}

#if WR_CHAIN_LIB == 3
WR_LINK(4, WR_NEXT)
#else
WR_LINK(6, WR_NEXT)
WR_LINK(5, WR_FN(6))
WR_LINK(4, WR_FN(5))
#endif
WR_LINK(3, WR_FN(4))
WR_LINK(2, WR_FN(3))
WR_LINK(1, WR_FN(2))
WR_LINK(0, WR_FN(1))
