/* passes.cpp - the probe module's optimisation, through LLVM's C++ pass
 * manager with the passes and analyses named one by one.
 *
 * The C API runs passes only through a pipeline string, which its
 * PassBuilder parses: PassBuilder names every pass LLVM has, so linking it
 * linked all of them (the IPO, vectoriser, instrumentation and coroutine
 * libraries), and their static constructors, relocations and page faults
 * were paid at every start of wraith.  Without it, wraith's code is 10 MB
 * smaller and starts with ~130 fewer page faults.
 *
 * The pass managers query analyses by type and must have each registered
 * before it is asked for: the list below holds what the six passes, the
 * inliner's InlineFunction and the analyses themselves ask for, and a few
 * more that they may ask for on other IR (an unregistered analysis is not
 * an error LLVM reports, but a crash).
 */
#include "config.h"

#include "codegen/passes.h"

#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/BasicAliasAnalysis.h>
#include <llvm/Analysis/BlockFrequencyInfo.h>
#include <llvm/Analysis/BranchProbabilityInfo.h>
#include <llvm/Analysis/LazyValueInfo.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/MemorySSA.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ProfileSummaryInfo.h>
#include <llvm/Analysis/ScopedNoAliasAA.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/TypeBasedAliasAnalysis.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

using namespace llvm;

static void register_analyses(ModuleAnalysisManager &mam, FunctionAnalysisManager &fam,
			      TargetMachine *tm)
{
	mam.registerPass([] { return PassInstrumentationAnalysis(); });
	mam.registerPass([] { return ProfileSummaryAnalysis(); });
	mam.registerPass([&fam] { return FunctionAnalysisManagerModuleProxy(fam); });
	fam.registerPass([&mam] { return ModuleAnalysisManagerFunctionProxy(mam); });
	fam.registerPass([] { return PassInstrumentationAnalysis(); });
	fam.registerPass([tm] { return TargetIRAnalysis(tm->getTargetIRAnalysis()); });
	fam.registerPass([] { return TargetLibraryAnalysis(); });
	fam.registerPass([] { return AssumptionAnalysis(); });
	fam.registerPass([] { return DominatorTreeAnalysis(); });
	fam.registerPass([] { return PostDominatorTreeAnalysis(); });
	fam.registerPass([] { return LoopAnalysis(); });
	fam.registerPass([] { return BranchProbabilityAnalysis(); });
	fam.registerPass([] { return BlockFrequencyAnalysis(); });
	fam.registerPass([] { return OptimizationRemarkEmitterAnalysis(); });
	fam.registerPass([] { return MemorySSAAnalysis(); });
	fam.registerPass([] { return LazyValueAnalysis(); });
	fam.registerPass([] { return BasicAA(); });
	fam.registerPass([] { return ScopedNoAliasAA(); });
	fam.registerPass([] { return TypeBasedAA(); });
	/* The alias analyses of clang's default pipeline, in its order. */
	fam.registerPass([] {
		AAManager aa;

		aa.registerFunctionAnalysis<BasicAA>();
		aa.registerFunctionAnalysis<ScopedNoAliasAA>();
		aa.registerFunctionAnalysis<TypeBasedAA>();
		return aa;
	});
}

extern "C" void passes_run(LLVMModuleRef mod, LLVMTargetMachineRef tm)
{
	/* In this order: the module manager's proxy clears the function
	 * manager when it goes, so the function manager must outlive it. */
	FunctionAnalysisManager fam;
	ModuleAnalysisManager mam;
	FunctionPassManager fpm;
	ModulePassManager mpm;

	register_analyses(mam, fam, reinterpret_cast<TargetMachine *>(tm));
	/* What the pipeline text "always-inline,globaldce,function(sroa,
	 * early-cse,instcombine,simplifycfg)" built (codegen.c says why). */
	fpm.addPass(SROAPass(SROAOptions::ModifyCFG));
	fpm.addPass(EarlyCSEPass());
	fpm.addPass(InstCombinePass());
	fpm.addPass(SimplifyCFGPass());
	mpm.addPass(AlwaysInlinerPass());
	mpm.addPass(GlobalDCEPass());
	mpm.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
	mpm.run(*unwrap(mod), mam);
}

#ifdef WR_LLVM_STATIC
/* The one symbol of PassBuilder's object file that the BPF target's (the
 * pipeline parsing callbacks it gives a PassBuilder) refers to: defined
 * here, the linker leaves PassBuilder out of a static link.  Nothing in
 * wraith builds a PassBuilder, so nothing calls it. */
Expected<bool> PassBuilder::parseSinglePassOption(StringRef params, StringRef option,
						  StringRef pass)
{
	return make_error<StringError>("wraith parses no pass pipelines", inconvertibleErrorCode());
}
#endif
