//===- UmbraPlugin.cpp - opt/clang pass plugin for Umbra ------------------===//
//
// A thin shim: registers the new-pass-manager module pass `umbra` and forwards
// the module to the Rust library (umbra-passes, linked in as a static archive)
// through its C ABI. All differentiation logic lives on the Rust side.
//
//   opt-22 -load-pass-plugin=libUmbraPlugin.so -passes=umbra in.ll -S
//   opt-22 -load-pass-plugin=libUmbraPlugin.so -passes='umbra<inactive=f;reopt=O2>' ...
//   clang-22 -O2 -fpass-plugin=libUmbraPlugin.so prog.c
//
// Under clang the pass runs at OptimizerLast (user code is optimised first) and
// asks the Rust side to re-run default<O{level}> afterwards when level > O0.
// A second pass, `umbra-protect`, runs at PipelineStart: it marks the functions
// that have user rules (__enzyme_register_gradient_*, ...) noinline, so that
// the optimiser cannot inline them before `umbra` replaces their calls.
// `umbra_plugin_protect_rules` exports the same for the clang plugin.
//
//===----------------------------------------------------------------------===//

#include "llvm-c/Types.h"
#include "llvm/IR/Module.h" // llvm::wrap(Module *) -> LLVMModuleRef
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/ErrorHandling.h"

#include <string>

extern "C" {
// Exported by passes/src/capi.rs.
int umbra_differentiate_module(LLVMModuleRef m, const char *params,
                               int *changed, char **error);
void umbra_free_error(char *error);
int umbra_protect_rules(LLVMModuleRef m);
}

namespace {

class UmbraPass : public llvm::PassInfoMixin<UmbraPass> {
public:
  explicit UmbraPass(std::string Params) : Params(std::move(Params)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    char *Error = nullptr;
    int Changed = 1;
    int Status = umbra_differentiate_module(llvm::wrap(&M), Params.c_str(),
                                            &Changed, &Error);
    if (Status != 0) {
      std::string Message = Error ? Error : "unknown failure";
      umbra_free_error(Error);
      // Exits with status 1: no stack dump, no "please report a bug" banner.
      llvm::reportFatalUsageError(llvm::Twine("umbra: error: ") + Message);
    }
    // A module without derivative requests is left untouched: keep its analyses.
    return Changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }

  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "umbra"; }

private:
  std::string Params;
};

class UmbraProtectPass : public llvm::PassInfoMixin<UmbraProtectPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    int Changed = umbra_protect_rules(llvm::wrap(&M));
    if (Changed < 0)
      llvm::reportFatalUsageError(
          "umbra: error: internal error: umbra-protect failed (this is a bug in "
          "umbra: please report it with the input file and the command line)");
    // Only function attributes change, which inlining decisions read afresh.
    return Changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }

  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "umbra-protect"; }
};

/// `umbra` -> "", `umbra<text>` -> "text"; false for any other name.
bool parsePassName(llvm::StringRef Name, std::string &Params) {
  if (Name == "umbra") {
    Params.clear();
    return true;
  }
  if (Name.consume_front("umbra<") && Name.consume_back(">")) {
    Params = Name.str();
    return true;
  }
  return false;
}

void registerCallbacks(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::ModulePassManager &MPM,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (Name == "umbra-protect") {
          MPM.addPass(UmbraProtectPass());
          return true;
        }
        std::string Params;
        if (!parsePassName(Name, Params))
          return false;
        MPM.addPass(UmbraPass(std::move(Params)));
        return true;
      });

  // clang -fpass-plugin: keep functions with user rules out of line from the
  // start (the always-inliner runs even at -O0)...
  PB.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
        MPM.addPass(UmbraProtectPass());
      });

  // ... and differentiate after the user's code is optimised,
  // then have the Rust side re-optimise the derivative code it generated.
  PB.registerOptimizerLastEPCallback([](llvm::ModulePassManager &MPM,
                                        llvm::OptimizationLevel Level,
                                        llvm::ThinOrFullLTOPhase) {
    std::string Params;
    if (Level.getSpeedupLevel() > 0)
      Params = "reopt=O" + std::to_string(Level.getSpeedupLevel());
    MPM.addPass(UmbraPass(std::move(Params)));
  });
}

} // namespace

/// umbra_protect_rules for the clang plugin (libUmbraClang.so), which runs it
/// at pipeline start when clang does not differentiate
/// (-fplugin-arg-umbra-no-pass): the Rust archive's own symbols are not
/// exported from this library (--exclude-libs), so it looks up this one.
extern "C" LLVM_ABI_EXPORT int umbra_plugin_protect_rules(LLVMModuleRef M) {
  return umbra_protect_rules(M);
}

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Umbra", "0.1.0", registerCallbacks};
}
