; gp_lml's factorisation: a left-looking Cholesky in place in a heap copy (N = 16, from
; clang -O1 -fno-unroll-loops -fno-vectorize). Every entry is written twice, the copied
; kernel then the factor; once written, factor entries are only read: row j's entries left of
; the diagonal (L[j][c], c < j), the finished columns of later rows (L[i][c], c < j) and the
; diagonal L[j][j] after its sqrt. Index reasoning re-reads those instead of taping them; the
; two reads of entries the factorisation then overwrites (djj and lij's first values) stay
; cached.
; RUN: %umbra %s --emit=llvm-ir -O0 -o /dev/null --print-types 2>&1 | FileCheck %s
; RUN: %opt-umbra -passes=umbra %s -o /dev/null
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck --check-prefix=TAPE %s

; CHECK-LABEL: overwrites of @f (memory stable):
; CHECK-NEXT:  %12 = load double, ptr %11, align 8: cached: may be overwritten by store double %18, ptr %11
; CHECK-NEXT:  %28 = load double, ptr %27, align 8: re-read (later stores miss it by index)
; CHECK-NEXT:  %37 = load double, ptr %36, align 8: cached: may be overwritten by store double %43, ptr %36
; CHECK-NEXT:  %50 = load double, ptr %49, align 8: re-read (later stores miss it by index)
; CHECK-NEXT:  %52 = load double, ptr %51, align 8: re-read (later stores miss it by index)
; CHECK-NEXT:  %42 = load double, ptr %11, align 8: re-read (later stores miss it by index)
; CHECK-NEXT:  %63 = load double, ptr %62, align 8: re-read
; CHECK-NEXT:  deferred free: tail call void @free(ptr noundef %2)

; The augmented sweep tapes two doubles, the results of sqrt and of the division (their
; adjoints need them), and no loaded value.
; TAPE-LABEL: define internal {{.*}} @augfwd.f
; TAPE-COUNT-2: store double %{{[0-9]+}}, ptr %{{[0-9]+}}, align 1
; TAPE-NOT: store double %{{[0-9]+}}, ptr %{{[0-9]+}}, align 1
; TAPE: define internal {{.*}} @adjoint.f

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind memory(readwrite, target_mem0: none, target_mem1: none) uwtable
define dso_local double @f(ptr noundef readonly captures(none) %0) {
  %2 = tail call noalias dereferenceable_or_null(2048) ptr @malloc(i64 noundef 2048)
  tail call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(2048) %2, ptr noundef nonnull align 8 dereferenceable(2048) %0, i64 2048, i1 false)
  br label %6

3:                                                ; preds = %41, %16
  %4 = add nuw nsw i64 %8, 1
  %5 = icmp eq i64 %19, 16
  br i1 %5, label %59, label %6

6:                                                ; preds = %1, %3
  %7 = phi i64 [ 0, %1 ], [ %19, %3 ]
  %8 = phi i64 [ 1, %1 ], [ %4, %3 ]
  %9 = shl nuw nsw i64 %7, 4
  %10 = mul nuw nsw i64 %7, 136
  %11 = getelementptr inbounds nuw i8, ptr %2, i64 %10
  %12 = load double, ptr %11, align 8
  %13 = icmp eq i64 %7, 0
  br i1 %13, label %16, label %14

14:                                               ; preds = %6
  %15 = getelementptr inbounds double, ptr %2, i64 %9
  br label %25

16:                                               ; preds = %25, %6
  %17 = phi double [ %12, %6 ], [ %31, %25 ]
  %18 = tail call double @sqrt(double noundef %17)
  store double %18, ptr %11, align 8
  %19 = add nuw nsw i64 %7, 1
  %20 = icmp samesign ult i64 %7, 15
  br i1 %20, label %21, label %3

21:                                               ; preds = %16
  %22 = icmp eq i64 %7, 0
  %23 = getelementptr inbounds double, ptr %2, i64 %7
  %24 = getelementptr inbounds double, ptr %2, i64 %9
  br label %34

25:                                               ; preds = %14, %25
  %26 = phi i64 [ %32, %25 ], [ 0, %14 ]
  %27 = phi double [ %31, %25 ], [ %12, %14 ]
  %28 = getelementptr inbounds double, ptr %15, i64 %26
  %29 = load double, ptr %28, align 8
  %30 = fneg double %29
  %31 = tail call double @llvm.fmuladd.f64(double %30, double %29, double %27)
  %32 = add nuw nsw i64 %26, 1
  %33 = icmp eq i64 %32, %7
  br i1 %33, label %16, label %25

34:                                               ; preds = %21, %41
  %35 = phi i64 [ %8, %21 ], [ %45, %41 ]
  %36 = shl nuw nsw i64 %35, 4
  %37 = getelementptr inbounds double, ptr %23, i64 %36
  %38 = load double, ptr %37, align 8
  br i1 %22, label %41, label %39

39:                                               ; preds = %34
  %40 = getelementptr inbounds double, ptr %2, i64 %36
  br label %47

41:                                               ; preds = %47, %34
  %42 = phi double [ %38, %34 ], [ %55, %47 ]
  %43 = load double, ptr %11, align 8
  %44 = fdiv double %42, %43
  store double %44, ptr %37, align 8
  %45 = add nuw nsw i64 %35, 1
  %46 = icmp eq i64 %45, 16
  br i1 %46, label %3, label %34

47:                                               ; preds = %39, %47
  %48 = phi i64 [ %56, %47 ], [ 0, %39 ]
  %49 = phi double [ %55, %47 ], [ %38, %39 ]
  %50 = getelementptr inbounds double, ptr %40, i64 %48
  %51 = load double, ptr %50, align 8
  %52 = getelementptr inbounds double, ptr %24, i64 %48
  %53 = load double, ptr %52, align 8
  %54 = fneg double %51
  %55 = tail call double @llvm.fmuladd.f64(double %54, double %53, double %49)
  %56 = add nuw nsw i64 %48, 1
  %57 = icmp eq i64 %56, %7
  br i1 %57, label %41, label %47

58:                                               ; preds = %59
  tail call void @free(ptr noundef %2)
  ret double %66

59:                                               ; preds = %3, %59
  %60 = phi i64 [ %67, %59 ], [ 0, %3 ]
  %61 = phi double [ %66, %59 ], [ 0.000000e+00, %3 ]
  %62 = mul nuw nsw i64 %60, 136
  %63 = getelementptr inbounds nuw i8, ptr %2, i64 %62
  %64 = load double, ptr %63, align 8
  %65 = tail call double @log(double noundef %64)
  %66 = fadd double %61, %65
  %67 = add nuw nsw i64 %60, 1
  %68 = icmp eq i64 %67, 16
  br i1 %68, label %58, label %59
}

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double)

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sqrt(double noundef) local_unnamed_addr

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @log(double noundef) local_unnamed_addr

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr noundef captures(none)) local_unnamed_addr

; Function Attrs: nounwind uwtable
define dso_local void @g(ptr noundef %0, ptr noundef %1) local_unnamed_addr {
  %3 = load i32, ptr @enzyme_dup, align 4
  %4 = tail call double (ptr, ...) @__enzyme_autodiff(ptr noundef nonnull @f, i32 noundef %3, ptr noundef %0, ptr noundef %1)
  ret void
}

declare double @__enzyme_autodiff(ptr noundef, ...) local_unnamed_addr

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)



