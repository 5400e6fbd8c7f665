/* signature.h - C++ overload signatures in trace patterns:
 * `Store::lookup(std::string const&)` names one overload of
 * Store::lookup, matched against the demangled names of the functions'
 * symbols the way a user writes them (spacing, `const T&` for
 * `T const&`, std::string for libstdc++'s and libc++'s basic_string).
 *
 * Layer rule: tracer/; pure text, no libdw.
 */
#ifndef WRAITH_TRACER_SIGNATURE_H
#define WRAITH_TRACER_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

/* Where the parameter list of pattern @s opens: the index of its '('
 * when @s ends with one (`f(int)`, `operator()(int)`), else -1 (`f`,
 * `operator()`). */
long signature_params_at(const char *s);

/* Whether demangled name @symbol (with parameters, as `nm -C` writes
 * it; a `+offset` after it is ignored) is function @name with
 * parameter list @params (its text from '(' on). */
bool signature_matches(const char *symbol, const char *name, const char *params);

#endif
