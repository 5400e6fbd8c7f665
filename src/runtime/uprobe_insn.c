/* uprobe_insn.c - see uprobe_insn.h.  The checks run in the kernel's
 * order: decoding, prefixes, SS loads, the opcode table, then what the
 * kernel emulates instead of single-stepping. */
#include "runtime/uprobe_insn.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's own "operation not supported" */
#endif

/* The opcode bytes the kernel's 64-bit table refuses, with what they are. */
static const char *refused_opcode(uint8_t op)
{
	switch (op) {
	case 0x6c ... 0x6f: return "ins/outs";
	case 0xe4 ... 0xe7: case 0xec ... 0xef: return "in/out";
	case 0xcc: return "int3";
	case 0xcd: return "int";
	case 0xcf: return "iret";
	case 0xf1: return "int1";
	case 0xf4: return "hlt";
	case 0xfa: return "cli";
	case 0xfb: return "sti";
	case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17: case 0x1e: case 0x1f:
	case 0x27: case 0x2f: case 0x37: case 0x3f: case 0x60 ... 0x62: case 0x82:
	case 0x9a: case 0xce: case 0xd4 ... 0xd6: case 0xea:
		return "invalid in 64-bit mode";
	default:
		return NULL;
	}
}

static const char *prefix_name(uint8_t p)
{
	switch (p) {
	case 0x26: return "ES segment-override";
	case 0x2e: return "CS segment-override";
	case 0x36: return "SS segment-override";
	case 0x3e: return "DS segment-override";
	case 0xf0: return "LOCK";
	default: return NULL;
	}
}

/* The legacy jumps and calls the kernel emulates. */
static bool is_branch(const struct x86insn *in)
{
	if (in->map == X86_MAP_0F)
		return in->opcode >= 0x80 && in->opcode <= 0x8f;
	return in->map == X86_MAP_ONE &&
	       (in->opcode == 0xe8 || in->opcode == 0xe9 || in->opcode == 0xeb ||
		(in->opcode >= 0x70 && in->opcode <= 0x7f));
}

/* For an AVX (or XOP) instruction: what the kernel takes its opcode byte
 * for when it is one it emulates, else NULL. */
static const char *mistaken_for(uint8_t op)
{
	switch (op) {
	case 0x70 ... 0x7f: case 0xe9: case 0xeb: return "a jump, so it would not run";
	case 0xe8: return "a call, so it would not run and a return address would be pushed";
	case 0x90: case 0x87: case 0x89: case 0x8b: case 0x8d:
		return "a no-op, so it would not run";
	case 0x9d: return "popf, so the thread would be left single-stepping";
	case 0xc2: case 0xc3: case 0xca: case 0xcb:
		return "a return, so the thread would go on running from the kernel's copy of it";
	default: return NULL;
	}
}

static enum uprobe_verdict refuse(const char **why, const char *what)
{
	*why = what;
	return UPROBE_INSN_REFUSED;
}

static enum uprobe_verdict judge_legacy(const struct x86insn *in, const char **why, char *buf,
					size_t size)
{
	const char *what;

	if (in->map == X86_MAP_ONE && (what = refused_opcode(in->opcode))) {
		snprintf(buf, size, "its opcode %02x (%s)", in->opcode, what);
		return refuse(why, buf);
	}
	if (is_branch(in) && x86insn_has_prefix(in, 0x66))
		return refuse(why, "an operand-size prefix (66) on a jump or call");
	/* 66 90 and other prefixed nops: refused like a 66-prefixed jump until
	 * late 2025, taken since */
	if (in->map == X86_MAP_ONE && in->opcode == 0x90 && x86insn_has_prefix(in, 0x66))
		return UPROBE_INSN_UNKNOWN;
	return UPROBE_INSN_OK;
}

static enum uprobe_verdict judge_avx(const struct x86insn *in, const char **why, char *buf,
				     size_t size)
{
	const char *what = refused_opcode(in->opcode);

	if (what) {
		snprintf(buf, size, "it is an AVX instruction whose opcode byte (%02x) the kernel "
			 "checks as if it were a one-byte opcode (%s)", in->opcode, what);
		return refuse(why, buf);
	}
	what = mistaken_for(in->opcode);
	if (!what)
		return in->enc == X86_XOP ? UPROBE_INSN_UNKNOWN : UPROBE_INSN_OK;
	snprintf(buf, size, "it is an AVX instruction whose opcode byte (%02x) the kernel takes for %s",
		 in->opcode, what);
	*why = buf;
	return UPROBE_INSN_MISRUN;
}

enum uprobe_verdict uprobe_insn_judge(const uint8_t *code, size_t n, struct x86insn *in,
				      const char **why, char *buf, size_t size)
{
	int err = x86insn_decode(code, n, in);
	size_t distinct = 0;

	*why = NULL;
	if (err) {
		in->len = 0;
		return UPROBE_INSN_UNKNOWN;
	}
	for (size_t i = 0; i < in->n_prefixes; i++) {
		const char *name = prefix_name(in->prefixes[i]);

		distinct += memchr(in->prefixes, in->prefixes[i], i) == NULL;
		if (name) {
			snprintf(buf, size, "its %s prefix (%02x)", name, in->prefixes[i]);
			return refuse(why, buf);
		}
	}
	if (distinct > 4) /* the kernel's decoder keeps four */
		return UPROBE_INSN_UNKNOWN;
	if (in->enc == X86_LEGACY && in->map == X86_MAP_ONE &&
	    (in->opcode == 0x17 || (in->opcode == 0x8e && x86insn_modrm_reg(in) == 2)))
		return refuse(why, "it loads SS, which holds off interrupts for one instruction");
	if (in->enc == X86_LEGACY)
		return judge_legacy(in, why, buf, size);
	return judge_avx(in, why, buf, size);
}

const char *uprobe_insn_error(int err)
{
	switch (-err) {
	case ENOTSUPP:
		return "the kernel's uprobes cannot single-step the instruction there";
	case ENOEXEC:
		return "the kernel could not decode the instruction there";
	default:
		return NULL;
	}
}
