//===- UmbraClang.cpp - clang plugin: Enzyme's source attributes for Umbra ===//
//
// Registers the declaration attributes Enzyme's clang plugin (ClangEnzyme-NN.so)
// registers, with Enzyme's spellings and meanings, plus Umbra spellings, and
// lowers them into the IR forms Enzyme's plugin emits, which the passes library
// reads (passes/src/rules/user.rs):
//
//   enzyme_inactive / umbra_inactive        on a function: annotate("enzyme_inactivefn")
//                                           on a global:   annotate("enzyme_inactive")
//   enzyme_inactive_noblock                 on a function: annotate("enzyme_inactivenoblockfn")
//   enzyme_function_like("log1p")           annotate("enzyme_function_like=log1p")
//     / umbra_function_like("log1p")
//   enzyme_shadow(g) / umbra_shadow(g)      on a global: annotate("enzyme_shadow", &g)
//   enzyme_checkpointing_enable("binomial", n) on a for statement: a call
//     / umbra_checkpointing_enable            __enzyme_set_checkpointing(2, n) at the top
//                                           of its body ("regular": 1), as Enzyme's plugin
//   enzyme_sparse_accumulate                on a function: accepted, nothing emitted
//     (it steers Enzyme's sparsity optimisation, which Umbra does not have; the
//     dense views it goes with are lowered exactly without it: api/todense.rs)
//
// Each has the GNU spelling __attribute__((enzyme_inactive)), the C23/C++11
// spelling [[enzyme_inactive]] and the namespaced [[enzyme::inactive]]; clang
// 22 passes no arguments to the namespaced spelling of a plugin attribute, so
// [[enzyme::function_like("log1p")]] is an error saying to write
// [[enzyme_function_like("log1p")]].
//
// clang emits annotations only for what a translation unit defines, so a
// function or global that is only declared here gets Enzyme's registration
// global instead: `__enzyme_inactivefn_autoreg_NAME = &f` (and
// `__enzyme_inactive_global_autoreg_NAME = &g`), kept with `used`.
//
// Functions with an inactive or function-like attribute must not be inlined
// into their callers before Umbra sees the calls, or the derivative would come
// from their bodies (-O1 and up): the pass plugin's umbra-protect keeps them
// out of line from the start of clang's pipeline (it reads the annotations),
// and gives them their inlining back once the module's requests are
// differentiated. No noinline is put on them here: it would stay for good.
//
// Like Enzyme's plugin, loading this one also loads the pass plugin: unless a
// libUmbraPlugin.so is already given with -fpass-plugin, the one next to this
// library is loaded into clang's pipeline, so `clang -fplugin=libUmbraClang.so` replaces
// `clang -fplugin=ClangEnzyme-22.so`. `-fplugin-arg-umbra-no-pass` turns that
// off (to differentiate later with the `umbra` driver or opt); the pass plugin's
// `umbra_protect_rules` still runs at the start of clang's pipeline then, as the
// pass plugin's `umbra-protect` pass would (umbra_plugin_protect_rules): functions with user rules
// (`__enzyme_register_gradient_*`, ... in C) stay out of line, so that the
// driver later finds their calls instead of inlined bodies.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclGroup.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <string>

using namespace clang;

namespace {

// The annotation texts: Enzyme's, so IR from either plugin reads the same.
constexpr llvm::StringLiteral InactiveFnNote = "enzyme_inactivefn";
constexpr llvm::StringLiteral InactiveNoblockFnNote = "enzyme_inactivenoblockfn";
constexpr llvm::StringLiteral InactiveGlobalNote = "enzyme_inactive";
constexpr llvm::StringLiteral FunctionLikeNote = "enzyme_function_like=";
constexpr llvm::StringLiteral ShadowNote = "enzyme_shadow";

bool isGlobalVar(const Decl *D) {
  auto *VD = dyn_cast<VarDecl>(D);
  return VD && VD->hasGlobalStorage();
}

/// Reports that attribute `Attr` does not apply to `D`; `What` names what it
/// applies to ("functions", "functions and globals", "globals").
void wrongSubject(Sema &S, const ParsedAttr &Attr, const char *What) {
  unsigned ID = S.getDiagnostics().getCustomDiagID(
      DiagnosticsEngine::Warning, "'%0' attribute only applies to %1; ignored");
  S.Diag(Attr.getLoc(), ID) << Attr.getAttrName()->getName() << What;
}

void error(Sema &S, const ParsedAttr &Attr, llvm::StringRef Text) {
  unsigned ID =
      S.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error, "%0");
  S.Diag(Attr.getLoc(), ID) << Text;
}

/// clang 22 drops the arguments of a plugin attribute spelled with a scope
/// (`[[enzyme::function_like("log1p")]]` arrives without "log1p"): say so
/// rather than that the argument is missing. True when that happened.
bool lostScopedArgs(Sema &S, const ParsedAttr &Attr, const std::string &Name) {
  if (Attr.getNumArgs() != 0 || !Attr.hasScope())
    return false;
  error(S, Attr,
        "clang passes no arguments to a plugin attribute written with a "
        "scope: spell it __attribute__((" +
            Name + "(...))) or [[" + Name + "(...)]]");
  return true;
}

void annotate(Sema &S, Decl *D, const ParsedAttr &Attr, llvm::StringRef Text,
              llvm::MutableArrayRef<Expr *> Args = {}) {
  D->addAttr(AnnotateAttr::Create(S.Context, Text, Args.data(), Args.size(),
                                  Attr.getRange()));
}

/// The spellings of one attribute: GNU, C23 and C++11, each plain (`Name`) and
/// namespaced (`Ns::Short`).
struct SpellingSet {
  std::string Name, Scoped;
  ParsedAttrInfo::Spelling S[5];
  SpellingSet(const char *Ns, const char *Short)
      : Name(std::string(Ns) + "_" + Short),
        Scoped(std::string(Ns) + "::" + Short),
        S{{ParsedAttr::AS_GNU, Name.c_str()},
          {ParsedAttr::AS_C23, Name.c_str()},
          {ParsedAttr::AS_C23, Scoped.c_str()},
          {ParsedAttr::AS_CXX11, Name.c_str()},
          {ParsedAttr::AS_CXX11, Scoped.c_str()}} {}
};

/// `inactive` and `inactive_noblock`: no derivative flows through calls to the
/// function, or through the global's contents.
struct InactiveAttr : public ParsedAttrInfo {
  SpellingSet Sp;
  llvm::StringRef FnNote;
  InactiveAttr(const char *Ns, const char *Short, llvm::StringRef FnNote)
      : Sp(Ns, Short), FnNote(FnNote) {
    Spellings = Sp.S;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D) || isGlobalVar(D))
      return true;
    wrongSubject(S, Attr, "functions and global variables");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    if (Attr.getNumArgs() != 0) {
      error(S, Attr, "'" + Sp.Name + "' takes no arguments");
      return AttributeNotApplied;
    }
    annotate(S, D, Attr, isa<FunctionDecl>(D) ? FnNote : InactiveGlobalNote);
    return AttributeApplied;
  }
};

/// `function_like("name")`: calls to the function are differentiated by the
/// built-in rule `name` (`umbra rules` lists them).
struct FunctionLikeAttr : public ParsedAttrInfo {
  SpellingSet Sp;
  FunctionLikeAttr(const char *Ns) : Sp(Ns, "function_like") {
    // One argument, checked by the handler (as OptArgs: a required argument
    // is diagnosed before the handler can name what it should be).
    OptArgs = 1;
    Spellings = Sp.S;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    wrongSubject(S, Attr, "functions");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    auto *Lit = Attr.getNumArgs() == 1 && Attr.isArgExpr(0)
                    ? dyn_cast<StringLiteral>(
                          Attr.getArgAsExpr(0)->IgnoreParenCasts())
                    : nullptr;
    if (lostScopedArgs(S, Attr, Sp.Name))
      return AttributeNotApplied;
    if (!Lit) {
      error(S, Attr,
            "'" + Sp.Name +
                "' takes one string literal, the name of a built-in rule "
                "(\"log1p\")");
      return AttributeNotApplied;
    }
    annotate(S, D, Attr, (FunctionLikeNote + Lit->getString()).str());
    return AttributeApplied;
  }
};

/// `shadow(g)` on a global: `g` (a global of the same type) holds its
/// derivative: reverse mode accumulates the adjoint there, forward mode reads
/// the tangent from there.
struct ShadowAttr : public ParsedAttrInfo {
  SpellingSet Sp;
  ShadowAttr(const char *Ns) : Sp(Ns, "shadow") {
    // One argument, checked by the handler (as OptArgs: a required argument
    // is diagnosed before the handler can name what it should be).
    OptArgs = 1;
    Spellings = Sp.S;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isGlobalVar(D))
      return true;
    wrongSubject(S, Attr, "global variables");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    // clang hands a lone name over as an identifier argument: look it up where
    // the attribute is (a static member finds its class's members).
    VarDecl *Shadow = nullptr;
    if (Attr.getNumArgs() == 1 && Attr.isArgIdent(0)) {
      IdentifierLoc *Id = Attr.getArgAsIdent(0);
      Shadow = dyn_cast_or_null<VarDecl>(
          S.LookupSingleName(S.getCurScope(), Id->getIdentifierInfo(),
                             Id->getLoc(), Sema::LookupOrdinaryName));
    } else if (Attr.getNumArgs() == 1 && Attr.isArgExpr(0)) {
      auto *Ref =
          dyn_cast<DeclRefExpr>(Attr.getArgAsExpr(0)->IgnoreParenImpCasts());
      Shadow = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    }
    if (lostScopedArgs(S, Attr, Sp.Name))
      return AttributeNotApplied;
    if (!Shadow || !Shadow->hasGlobalStorage()) {
      error(S, Attr,
            "'" + Sp.Name + "' takes one global variable, the shadow");
      return AttributeNotApplied;
    }
    auto *VD = cast<VarDecl>(D);
    if (Shadow == VD || !S.Context.hasSameUnqualifiedType(
                            Shadow->getType(), VD->getType())) {
      error(S, Attr,
            "the shadow named by '" + Sp.Name +
                "' must be another global of the same type");
      return AttributeNotApplied;
    }
    ExprResult Ref = S.BuildDeclarationNameExpr(
        CXXScopeSpec(), DeclarationNameInfo(Shadow->getDeclName(), Attr.getLoc()),
        Shadow);
    if (Ref.isInvalid())
      return AttributeNotApplied;
    ExprResult Addr =
        S.CreateBuiltinUnaryOp(Attr.getLoc(), UO_AddrOf, Ref.get());
    if (Addr.isInvalid())
      return AttributeNotApplied;
    Expr *Args[1] = {Addr.get()};
    // Annotation arguments must be folded constants (what codegen emits).
    if (!S.ConstantFoldAttrArgs(Attr, Args))
      return AttributeNotApplied;
    annotate(S, D, Attr, ShadowNote, Args);
    return AttributeApplied;
  }
};

struct EnzymeInactive : InactiveAttr {
  EnzymeInactive() : InactiveAttr("enzyme", "inactive", InactiveFnNote) {}
};
struct EnzymeInactiveNoblock : InactiveAttr {
  EnzymeInactiveNoblock()
      : InactiveAttr("enzyme", "inactive_noblock", InactiveNoblockFnNote) {}
};
struct UmbraInactive : InactiveAttr {
  UmbraInactive() : InactiveAttr("umbra", "inactive", InactiveFnNote) {}
};
struct EnzymeFunctionLike : FunctionLikeAttr {
  EnzymeFunctionLike() : FunctionLikeAttr("enzyme") {}
};
struct UmbraFunctionLike : FunctionLikeAttr {
  UmbraFunctionLike() : FunctionLikeAttr("umbra") {}
};
struct EnzymeShadow : ShadowAttr {
  EnzymeShadow() : ShadowAttr("enzyme") {}
};
struct UmbraShadow : ShadowAttr {
  UmbraShadow() : ShadowAttr("umbra") {}
};

/// `sparse_accumulate` on a function: accepted and dropped (see the file
/// comment), so that Enzyme's sparse examples compile without a warning.
struct SparseAccumulateAttr : public ParsedAttrInfo {
  SpellingSet Sp;
  SparseAccumulateAttr() : Sp("enzyme", "sparse_accumulate") { Spellings = Sp.S; }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    wrongSubject(S, Attr, "functions");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    if (Attr.getNumArgs() != 0) {
      error(S, Attr, "'" + Sp.Name + "' takes no arguments");
      return AttributeNotApplied;
    }
    return AttributeApplied;
  }
};

/// `checkpointing_enable("binomial" | "regular", snapshots)` on a `for`
/// statement: the loop's gradient is checkpointed (docs/guide/checkpointing.md).
/// Lowered as Enzyme's plugin lowers it: a call
/// `__enzyme_set_checkpointing(mode, snapshots)` put at the top of the loop
/// body (mode 2 binomial, 1 regular, i.e. periodic; snapshots 0 when not
/// given), from which the passes library outlines the loop
/// (passes/src/checkpoint/outline.rs).
struct CheckpointingAttr : public ParsedAttrInfo {
  SpellingSet Sp;
  explicit CheckpointingAttr(const char *Ns) : Sp(Ns, "checkpointing_enable") {
    Spellings = Sp.S;
    OptArgs = 2;
  }

  bool diagAppertainsToStmt(Sema &S, const ParsedAttr &Attr,
                            const Stmt *St) const override {
    if (isa<ForStmt>(St))
      return true;
    wrongSubject(S, Attr, "for statements");
    return false;
  }

  AttrHandling handleStmtAttribute(Sema &S, Stmt *St, const ParsedAttr &Attr,
                                   class Attr *&Result) const override {
    if (lostScopedArgs(S, Attr, Sp.Name))
      return AttributeNotApplied;
    uint64_t Mode = 1, Snapshots = 0;
    if (Attr.getNumArgs() >= 1) {
      auto *Lit = dyn_cast_or_null<StringLiteral>(
          Attr.isArgExpr(0) ? Attr.getArgAsExpr(0)->IgnoreParenCasts()
                            : nullptr);
      if (!Lit || (Lit->getString() != "binomial" &&
                   Lit->getString() != "regular")) {
        error(S, Attr,
              "the first argument of '" + Sp.Name +
                  "' is \"binomial\" or \"regular\"");
        return AttributeNotApplied;
      }
      Mode = Lit->getString() == "binomial" ? 2 : 1;
    }
    if (Attr.getNumArgs() >= 2) {
      Expr::EvalResult R;
      if (!Attr.isArgExpr(1) ||
          !Attr.getArgAsExpr(1)->EvaluateAsInt(R, S.Context) ||
          R.Val.getInt().isNegative()) {
        error(S, Attr,
              "the second argument of '" + Sp.Name +
                  "' is a constant number of snapshots");
        return AttributeNotApplied;
      }
      Snapshots = R.Val.getInt().getZExtValue();
    }
    markLoop(S, cast<ForStmt>(St), Mode, Snapshots, Attr.getLoc());
    // The call in its body is the mark; the loop is kept from being unrolled (as by
    // `#pragma clang loop unroll(disable)`), which would make it a loop Umbra cannot outline.
    Result = LoopHintAttr::CreateImplicit(S.Context, LoopHintAttr::Unroll,
                                          LoopHintAttr::Disable, nullptr,
                                          Attr.getRange());
    return AttributeApplied;
  }

  /// Puts `__enzyme_set_checkpointing(Mode, Snapshots)` before the body of
  /// `For`, declaring the function (extern "C") unless a header did.
  static void markLoop(Sema &S, ForStmt *For, uint64_t Mode, uint64_t Snapshots,
                       SourceLocation Loc) {
    ASTContext &Ctx = S.Context;
    TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
    IdentifierInfo &Id = Ctx.Idents.get("__enzyme_set_checkpointing");
    FunctionDecl *F = nullptr;
    for (NamedDecl *D : TU->lookup(DeclarationName(&Id)))
      if ((F = dyn_cast<FunctionDecl>(D)))
        break;
    QualType U64 = Ctx.UnsignedLongLongTy;
    if (!F) {
      QualType FnTy = Ctx.getFunctionType(Ctx.VoidTy, {U64, U64}, {});
      DeclContext *DC = TU;
      if (Ctx.getLangOpts().CPlusPlus) {
        auto *Spec = LinkageSpecDecl::Create(Ctx, TU, Loc, Loc,
                                             LinkageSpecLanguageIDs::C,
                                             /*HasBraces=*/false);
        TU->addDecl(Spec);
        DC = Spec;
      }
      F = FunctionDecl::Create(Ctx, DC, Loc, Loc, DeclarationName(&Id), FnTy,
                               nullptr, SC_Extern);
      SmallVector<ParmVarDecl *, 2> Params;
      for (int K = 0; K < 2; K++)
        Params.push_back(ParmVarDecl::Create(Ctx, F, Loc, Loc, nullptr, U64,
                                             nullptr, SC_None, nullptr));
      F->setParams(Params);
      F->setImplicit(true);
      DC->addDecl(F);
    }
    auto *Ref = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), Loc, F,
                                    false, Loc, F->getType(), VK_LValue);
    Expr *Callee = ImplicitCastExpr::Create(
        Ctx, Ctx.getPointerType(F->getType()), CK_FunctionToPointerDecay, Ref,
        nullptr, VK_PRValue, FPOptionsOverride());
    SmallVector<Expr *, 2> Args;
    for (uint64_t V : {Mode, Snapshots}) {
      Expr *Lit = IntegerLiteral::Create(Ctx, llvm::APInt(64, V), U64, Loc);
      QualType P = F->getParamDecl(Args.size())->getType();
      if (!Ctx.hasSameType(P, U64))
        Lit = ImplicitCastExpr::Create(Ctx, P, CK_IntegralCast, Lit, nullptr,
                                       VK_PRValue, FPOptionsOverride());
      Args.push_back(Lit);
    }
    Expr *Call = CallExpr::Create(Ctx, Callee, Args, Ctx.VoidTy, VK_PRValue,
                                  Loc, FPOptionsOverride());
    Stmt *Body[] = {Call, For->getBody()};
    For->setBody(CompoundStmt::Create(Ctx, Body, FPOptionsOverride(), Loc, Loc));
  }
};

struct EnzymeCheckpointing : CheckpointingAttr {
  EnzymeCheckpointing() : CheckpointingAttr("enzyme") {}
};
struct UmbraCheckpointing : CheckpointingAttr {
  UmbraCheckpointing() : CheckpointingAttr("umbra") {}
};

ParsedAttrInfoRegistry::Add<EnzymeInactive> A1("enzyme_inactive", "");
ParsedAttrInfoRegistry::Add<EnzymeInactiveNoblock> A2("enzyme_inactive_noblock",
                                                      "");
ParsedAttrInfoRegistry::Add<UmbraInactive> A3("umbra_inactive", "");
ParsedAttrInfoRegistry::Add<EnzymeFunctionLike> A4("enzyme_function_like", "");
ParsedAttrInfoRegistry::Add<UmbraFunctionLike> A5("umbra_function_like", "");
ParsedAttrInfoRegistry::Add<EnzymeShadow> A6("enzyme_shadow", "");
ParsedAttrInfoRegistry::Add<UmbraShadow> A7("umbra_shadow", "");
ParsedAttrInfoRegistry::Add<SparseAccumulateAttr> A8("enzyme_sparse_accumulate",
                                                     "");
ParsedAttrInfoRegistry::Add<EnzymeCheckpointing>
    A9("enzyme_checkpointing_enable", "");
ParsedAttrInfoRegistry::Add<UmbraCheckpointing>
    A10("umbra_checkpointing_enable", "");

/// The registration-global kind (`__enzyme_KIND_autoreg_...`) for an
/// annotation of ours on `D`, or "" for any other annotation.
llvm::StringRef registrationKind(llvm::StringRef Note, const Decl *D) {
  if (isa<FunctionDecl>(D)) {
    if (Note == InactiveFnNote)
      return "inactivefn";
    if (Note == InactiveNoblockFnNote)
      return "inactivenoblockfn";
  } else if (Note == InactiveGlobalNote) {
    return "inactive_global";
  }
  return "";
}

bool definedHere(const Decl *D) {
  if (auto *FD = dyn_cast<FunctionDecl>(D))
    return FD->isThisDeclarationADefinition();
  if (auto *VD = dyn_cast<VarDecl>(D))
    return VD->isThisDeclarationADefinition() != VarDecl::DeclarationOnly;
  return false;
}

/// `umbra_protect_rules` of the pass plugin (passes/src/capi.rs), run as a
/// module pass: marks the functions user rules name noinline.
class ProtectPass : public llvm::PassInfoMixin<ProtectPass> {
public:
  using ProtectFn = int (*)(LLVMModuleRef);
  explicit ProtectPass(ProtectFn Protect) : Protect(Protect) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    int Changed = Protect(llvm::wrap(&M));
    if (Changed < 0)
      llvm::reportFatalUsageError(
          "umbra: error: internal error: umbra-protect failed (this is a bug in "
          "umbra: please report it with the input file and the command line)");
    return Changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "umbra-protect"; }

private:
  ProtectFn Protect;
};

class UmbraConsumer final : public ASTConsumer {
  CompilerInstance &CI;
  unsigned Registered = 0;

  /// `__enzyme_KIND_autoreg_NAME_N = &D` at translation-unit scope (C++
  /// overloads share NAME, hence the counter).
  void registerDecl(ValueDecl *D, llvm::StringRef Kind) {
    Sema &S = CI.getSema();
    ASTContext &AST = CI.getASTContext();
    SourceLocation Loc = D->getLocation();
    ExprResult Ref = S.BuildDeclarationNameExpr(
        CXXScopeSpec(), DeclarationNameInfo(D->getDeclName(), Loc), D);
    if (Ref.isInvalid())
      return;
    ExprResult Addr = S.CreateBuiltinUnaryOp(Loc, UO_AddrOf, Ref.get());
    if (Addr.isInvalid() || Addr.get()->isValueDependent())
      return;
    std::string Name = ("__enzyme_" + Kind + "_autoreg_").str() +
                       D->getNameAsString() + "_" +
                       std::to_string(Registered++);
    auto *V = VarDecl::Create(AST, AST.getTranslationUnitDecl(), Loc, Loc,
                              &AST.Idents.get(Name), Addr.get()->getType(),
                              nullptr, SC_None);
    V->addAttr(UsedAttr::CreateImplicit(AST));
    V->setInit(Addr.get());
    AST.getTranslationUnitDecl()->addDecl(V);
    S.getASTConsumer().HandleTopLevelDecl(DeclGroupRef(V));
  }

public:
  UmbraConsumer(CompilerInstance &CI, bool LoadPassPlugin) : CI(CI) {
    if (LoadPassPlugin)
      addPassPlugin();
    else
      addProtectPass();
  }

  /// The sibling libUmbraPlugin.so, or "" (with a warning) when this
  /// library's own path is unknown.
  std::string siblingPassPlugin() {
    Dl_info Info;
    if (!dladdr(reinterpret_cast<void *>(&registrationKind), &Info) ||
        !Info.dli_fname)
      return "";
    llvm::SmallString<256> Path(Info.dli_fname);
    llvm::sys::path::remove_filename(Path);
    llvm::sys::path::append(Path, "libUmbraPlugin.so");
    return std::string(Path);
  }

  void warnNotLoaded(llvm::StringRef Path, llvm::StringRef Why,
                     llvm::StringRef Consequence) {
    unsigned ID = CI.getDiagnostics().getCustomDiagID(
        DiagnosticsEngine::Warning, "umbra: cannot load %0 (%1): %2");
    CI.getDiagnostics().Report(ID) << Path << Why << Consequence;
  }

  /// Without the pass (-fplugin-arg-umbra-no-pass), the functions that user
  /// rules name are still kept out of line from the start of the pipeline (by
  /// the pass plugin's own code, looked up in the sibling library): the driver
  /// that differentiates the module later can only apply a rule to calls, and
  /// the optimiser would otherwise inline small functions such as a fast
  /// inverse square root, whose body then gives a wrong derivative.
  void addProtectPass() {
    std::string Path = siblingPassPlugin();
    if (Path.empty())
      return;
    std::string Why;
    auto Lib = llvm::sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Why);
    void *Sym = Lib.isValid() ? Lib.getAddressOfSymbol("umbra_plugin_protect_rules")
                              : nullptr;
    if (!Sym) {
      warnNotLoaded(Path, Why.empty() ? "no umbra_plugin_protect_rules" : Why,
                    "functions with user rules may be inlined before the "
                    "umbra driver sees their calls");
      return;
    }
    auto Protect = reinterpret_cast<ProtectPass::ProtectFn>(Sym);
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [Protect](llvm::PassBuilder &PB) {
          PB.registerPipelineStartEPCallback(
              [Protect](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
                MPM.addPass(ProtectPass(Protect));
              });
        });
  }

  /// Loads the sibling libUmbraPlugin.so into clang's optimisation pipeline
  /// unless -fpass-plugin loaded one already. clang 22 loads -fpass-plugin
  /// libraries before any AST consumer exists, so this one is loaded here and
  /// registered through CodeGenOptions::PassBuilderCallbacks (as Enzyme does).
  void addPassPlugin() {
    for (const auto &P : CI.getPassPlugins())
      if (llvm::sys::path::stem(P->getFilename()) == "libUmbraPlugin")
        return;
    std::string Path = siblingPassPlugin();
    if (Path.empty())
      return;
    auto Plugin = llvm::PassPlugin::Load(Path);
    if (!Plugin) {
      warnNotLoaded(Path, llvm::toString(Plugin.takeError()),
                    "derivative requests are not differentiated by clang "
                    "(pass -fpass-plugin=... or run the umbra driver)");
      return;
    }
    // The plugin stays loaded for the process's life (a PassPlugin holds the
    // library open); the callback keeps its own copy.
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [P = *Plugin](llvm::PassBuilder &PB) {
          P.registerPassBuilderCallbacks(PB);
        });
  }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    for (Decl *D : DG) {
      if (!(isa<FunctionDecl>(D) || isGlobalVar(D)) || definedHere(D) ||
          D->isTemplated())
        continue;
      for (auto *A : D->specific_attrs<AnnotateAttr>()) {
        llvm::StringRef Kind = registrationKind(A->getAnnotation(), D);
        if (!Kind.empty()) {
          registerDecl(cast<ValueDecl>(D), Kind);
          break;
        }
      }
    }
    return true;
  }
};

class UmbraAction final : public PluginASTAction {
  bool LoadPassPlugin = true;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    return std::make_unique<UmbraConsumer>(CI, LoadPassPlugin);
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      if (A == "no-pass") {
        LoadPassPlugin = false;
      } else {
        unsigned ID = CI.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error,
            "umbra clang plugin: unknown argument '%0' (known: no-pass)");
        CI.getDiagnostics().Report(ID) << A;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<UmbraAction>
    Action("umbra", "Umbra: Enzyme's source attributes");

} // namespace
