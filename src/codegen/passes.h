/* passes.h - the optimisation a probe module gets before emission: a few
 * LLVM passes run through LLVM's C++ API (passes.cpp), not through the C
 * API's pipeline parser, whose PassBuilder links every pass LLVM has.
 *
 * Layer rule: private to src/codegen.
 */
#ifndef WRAITH_CODEGEN_PASSES_H
#define WRAITH_CODEGEN_PASSES_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Inline the always_inline functions of @mod, drop the unreferenced
 * internal ones, then SROA, early CSE, instcombine and simplifycfg on each
 * function, the analyses tuned for @tm.  Cannot fail: @mod was verified. */
void passes_run(LLVMModuleRef mod, LLVMTargetMachineRef tm);

#ifdef __cplusplus
}
#endif

#endif
