/* symtab.c - addresses to ELF symbols for values (see symtab.h).
 *
 * gdb names a pointer's target by the minimal symbol that contains it:
 * the nearest symbol at or below the address, only when the address is
 * within the symbol's size.  libdwfl's address lookup gives the nearest
 * symbol; the size check is ours.  Section and file symbols never count.
 * Names are shown as gdb shows them (shown_length()).
 */
#include "dwarf/symtab.h"
#include "dwarf/module_priv.h"
#include "dwarf/symbolize.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool names_data_or_code(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return type == STT_OBJECT || type == STT_FUNC || type == STT_GNU_IFUNC ||
	       type == STT_COMMON || (type == STT_NOTYPE && sym->st_size);
}

void dw_module_range(struct dw_module *m, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr lo = 0, hi = 0;

	if (m->mod)
		dwfl_module_info(m->mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	*start = lo;
	*end = hi;
}

/* Whether @m's DWARF has a function that starts at @vaddr. */
static bool function_starts_at(struct dw_module *m, uint64_t vaddr)
{
	struct dw_sym ds;

	return dw_symbolize(m, vaddr, &ds) == 0 && ds.frames[ds.n - 1].function &&
	       ds.frames[ds.n - 1].sym_offset == 0;
}

static bool is_lower_or_digit(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c);
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len > n && !memcmp(s + len - n, tail, n);
}

/* Of @s's first @len bytes, the length without trailing digits that
 * follow a dot, a dollar or two or three underscores (o.1, a$5, a__5). */
static size_t without_number(const char *s, size_t len)
{
	size_t k;

	if (len < 2 || !isdigit((unsigned char)s[len - 1]))
		return len;
	for (k = len - 2; k > 0 && isdigit((unsigned char)s[k]); k--)
		;
	if (s[k] == '.' || s[k] == '$')
		return k;
	if (k >= 2 && !strncmp(s + k - 2, "___", 3))
		return k - 2;
	if (k >= 1 && s[k - 1] == '_' && s[k] == '_')
		return k - 1;
	return len;
}

/* Where a run of digits, then 's' or 'b', starting at @s[@i] ends, when
 * the name ends there or goes on with "__"; 0 otherwise. */
static size_t elaboration_end(const char *s, size_t i, size_t len)
{
	size_t k = i;

	while (k < len && isdigit((unsigned char)s[k]))
		k++;
	if (k == i || k >= len || (s[k] != 's' && s[k] != 'b'))
		return 0;
	k++;
	return k == len || (k + 1 < len && s[k] == '_' && s[k + 1] == '_') ? k : 0;
}

/* The middle of gdb's decoding: "__" reads ".", GNAT's markers go. */
static void decode_body(const char *s, size_t len, struct strbuf *out)
{
	size_t i = 0, k;

	while (i < len && !isalpha((unsigned char)s[i]))
		strbuf_addch(out, s[i++]);
	while (i < len) {
		if (i + 4 < len && !strncmp(s + i, "TK__", 4))
			i += 2;
		if (i + 5 < len && !strncmp(s + i, "__B_", 4) && isdigit((unsigned char)s[i + 4])) {
			for (k = i + 4; k < len && isdigit((unsigned char)s[k]); k++)
				;
			if (k + 1 < len && s[k] == '_' && s[k + 1] == '_')
				i = k;
		}
		if (i + 3 < len && s[i] == '_' && s[i + 1] == 'E' && (k = elaboration_end(s, i + 2, len))) {
			i = k;
			continue;
		}
		if (i > 0 && i + 2 < len && s[i] == 'N' && s[i + 1] == '_' && s[i + 2] == '_' &&
		    is_lower_or_digit(s[i - 1]))
			i++;
		if (i + 2 < len && s[i] == '_' && s[i + 1] == '_') {
			strbuf_addch(out, '.');
			i += 2;
		} else {
			strbuf_addch(out, s[i++]);
		}
	}
}

bool dw_symbol_decoded_name(const char *name, struct strbuf *out)
{
	const char *s = name, *p;
	size_t len, suffix = 0, at = out->len, k;

	if (!strncmp(s, "_ada_", 5))
		s += 5;
	if (!*s || s[0] == '_' || s[0] == '<')
		return false;
	len = strlen(s);
	/* a suffix of letters after a dot, shown in brackets: foo[cold] */
	for (k = len - 1; k > 0 && isalpha((unsigned char)s[k]); k--)
		;
	if (k > 0 && s[k] == '.') {
		suffix = k + 1;
		len = k;
	}
	len = without_number(s, len);
	if (len > 1 && s[len - 1] == 'N' && is_lower_or_digit(s[len - 2]))
		len--;
	if ((p = strstr(s, "___")) && (size_t)(p - s) + 3 < len) {
		if (p[3] != 'X')
			return false;
		len = (size_t)(p - s);
	}
	if (ends_with(s, len, "TKB"))
		len -= 3;
	if (ends_with(s, len, "TB"))
		len -= 2;
	if (ends_with(s, len, "B"))
		len -= 1;
	len = without_number(s, len);
	decode_body(s, len, out);
	for (k = at; k < out->len; k++) {
		if (isupper((unsigned char)out->buf[k]) || out->buf[k] == ' ') {
			out->len = at;
			out->buf[at] = '\0';
			return false;
		}
	}
	if (suffix)
		strbuf_addf(out, "[%s]", s + suffix);
	return true;
}

/* Append @name as gdb shows the symbol that holds @vaddr (@start: the
 * symbol's own address).  Where the DWARF has a function entered at the
 * symbol's address, gdb names the code by that function's symbol
 * (dw_function_symbol_name: `tmax<int>(int, int)` without the return
 * type the ELF symbol demangles to, `work` for a copy GCC made of it,
 * `work.constprop.0` for one made under -flto, `kv::{impl#0}::handle`
 * in Rust); else a C++ name demangled (`f(int)`), a copy's clone
 * suffix dropped where DWARF has its function; any other name through
 * gdb's decoding of plain symbols, which drops GCC's number on a static
 * variable (`o.1` -> `o`) and brackets a suffix of letters (`foo.cold`
 * -> `foo[cold]`). */
static void shown_name(struct dw_module *m, const char *name, const GElf_Sym *sym, uint64_t start,
		       struct strbuf *out)
{
	bool code = GELF_ST_TYPE(sym->st_info) == STT_FUNC;
	char *plain;
	const char *cut;

	if (code && dw_function_symbol_name(m, start, out))
		return;
	plain = dw_demangle(name, true); /* gdb: <f(int)+4> */
	if (plain) {
		cut = code ? strstr(plain, " [clone .") : NULL;
		strbuf_add(out, plain, cut && function_starts_at(m, start) ? (size_t)(cut - plain) : strlen(plain));
		free(plain);
		return;
	}
	cut = code ? strchr(name, '.') : NULL;
	if (cut && cut != name && function_starts_at(m, start))
		strbuf_add(out, name, (size_t)(cut - name));
	else if (!dw_symbol_decoded_name(name, out))
		strbuf_addstr(out, name);
}

bool dw_module_symbol_at(struct dw_module *m, uint64_t vaddr, struct strbuf *out)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	uint64_t lo, hi;
	const char *name;

	dw_module_range(m, &lo, &hi);
	if (vaddr < lo || vaddr >= hi)
		return false;
	name = dwfl_module_addrinfo(m->mod, vaddr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || !names_data_or_code(&sym) || (sym.st_size ? off >= sym.st_size : off != 0))
		return false;
	shown_name(m, name, &sym, vaddr - off, out);
	if (off)
		strbuf_addf(out, "+%llu", (unsigned long long)off);
	return true;
}

/* A symbol other modules' references bind to: defined, global or weak,
 * of default visibility; a data object (@code false) or a function. */
static bool binds(const GElf_Sym *sym, bool code)
{
	int bind = GELF_ST_BIND(sym->st_info), type = GELF_ST_TYPE(sym->st_info);

	return sym->st_shndx != SHN_UNDEF && GELF_ST_VISIBILITY(sym->st_other) == STV_DEFAULT &&
	       (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
	       (code ? type == STT_FUNC : type == STT_OBJECT || type == STT_COMMON);
}

int dw_module_dynamic_symbols(struct dw_module *m, dw_dynsym_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	int found = -1;

	while (m->elf && (scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		found = 0;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(data, (int)i, &sym) && (s = elf_strptr(m->elf, sh.sh_link, sym.st_name)) &&
			    fn(s, &sym, ctx))
				return 1;
		}
	}
	return found;
}

struct wanted_symbol {
	const char *name;
	bool code;
	uint64_t *vaddr;
};

static bool is_wanted(const char *name, const GElf_Sym *sym, void *ctx)
{
	struct wanted_symbol *w = ctx;

	if (!binds(sym, w->code) || strcmp(name, w->name) != 0)
		return false;
	*w->vaddr = sym->st_value;
	return true;
}

static bool dynamic_symbol(struct dw_module *m, const char *name, bool code, uint64_t *vaddr)
{
	struct wanted_symbol w = { name, code, vaddr };

	return dw_module_dynamic_symbols(m, is_wanted, &w) == 1;
}

bool dw_module_dynamic_object(struct dw_module *m, const char *name, uint64_t *vaddr)
{
	return dynamic_symbol(m, name, false, vaddr);
}

bool dw_module_dynamic_function(struct dw_module *m, const char *name, uint64_t *vaddr)
{
	return dynamic_symbol(m, name, true, vaddr);
}
