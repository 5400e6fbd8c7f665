/* error.h - wraith's domain error codes.
 *
 * Layer rule: util/ depends on nothing else in wraith.  Every fallible
 * function in wraith returns 0 or a negative value: either -errno for
 * system failures or -WR_E* for domain failures.  One X-macro table
 * generates the enum and the message function, so a code and its text
 * can never drift apart.
 */
#ifndef WRAITH_UTIL_ERROR_H
#define WRAITH_UTIL_ERROR_H

/* Domain codes start above the errno range so -errno and -WR_E* never clash. */
#define WR_ERROR_BASE 4096

#define WR_ERROR_TABLE(X)                                                        \
	X(WR_ESYNTAX,      "script syntax error")                                  \
	X(WR_ESEMANTIC,    "script semantic error")                                \
	X(WR_ENOTARGET,    "probe target not found")                               \
	X(WR_ENOPROC,      "process not found")                                    \
	X(WR_EKTHREAD,     "process is a kernel thread")                           \
	X(WR_ENODWARF,     "no debug information")                                 \
	X(WR_EELF,         "malformed or unsupported ELF file")                    \
	X(WR_EDWARF,       "malformed DWARF data")                                 \
	X(WR_ECODEGEN,     "code generation failed")                               \
	X(WR_EVERIFIER,    "BPF verifier rejected the program")                    \
	X(WR_ELOAD,        "BPF object load failed")                               \
	X(WR_EATTACH,      "uprobe attach failed")                                 \
	X(WR_EPERM,        "insufficient privilege")                               \
	X(WR_EUSAGE,       "invalid usage")                                        \
	X(WR_ECOMMAND,     "invalid command")                                      \
	X(WR_EPROTO,       "malformed event")                                      \
	X(WR_ELIMIT,       "limit exceeded")                                       \
	X(WR_EUNSUPPORTED, "not supported")                                    \
	X(WR_EMISMATCH,    "debug file does not match the module")                \
	X(WR_EUNSAFE,      "refused: unsafe path")                                 \
	X(WR_ENOTREG,      "not a regular file")

enum wr_error {
	WR_EFIRST_ = WR_ERROR_BASE,
#define WR_ERROR_ENUM(name, text) name,
	WR_ERROR_TABLE(WR_ERROR_ENUM)
#undef WR_ERROR_ENUM
	WR_ELAST_
};

/* Text for a negative return value (-errno or -WR_E*).  Returns a static
 * string; never NULL. */
const char *wr_strerror(int err);

#endif
