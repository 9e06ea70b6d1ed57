; The tape helpers umbra.tape.push/pop are defined once per module, internal, however many
; requests use them. push reserves at the old end (starting a new chunk when full), pop
; releases the last bytes and returns the new end.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s --check-prefix=HELD
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s --check-prefix=HELD
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s --check-prefix=SETTLE
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s --check-prefix=SETTLE

declare double @__enzyme_autodiff(ptr, ...)
declare double @sin(double)
declare double @cos(double)

; A libm result is rebuilt in the adjoint only when it feeds nothing but the function's result
; (reverse/plan.rs); here it also decides a select, so s goes on the tape for the product.
define double @f(double %x) {
entry:
  %s = call double @sin(double %x)
  %t = fmul double %s, %s
  %c = fcmp olt double %s, 0.5
  %r = select i1 %c, double %t, double %x
  ret double %r
}

define double @g(double %x) {
entry:
  %s = call double @cos(double %x)
  %t = fmul double %s, %s
  %c = fcmp olt double %s, 0.5
  %r = select i1 %c, double %t, double %x
  ret double %r
}

define double @caller(double %x) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  %r2 = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x)
  %r = fadd double %r1, %r2
  ret double %r
}

; Requests are lowered in no particular order, so this file only checks order-independent
; facts: each request gets its own tape and a 1 KiB first chunk in the caller's frame, the tape
; zeroed and started (on that chunk, or on a heap chunk as large as the hint), used by both
; sweeps and freed after them.
; CHECK-LABEL: define double @caller(double %x)
; CHECK-DAG:     [[TA:%tape[0-9]*]] = alloca { ptr, i64, i64 }, align 8
; CHECK-DAG:     [[TB:%tape[0-9]*]] = alloca { ptr, i64, i64 }, align 8
; CHECK-DAG:     [[SA:%tape.stack[0-9]*]] = alloca [4096 x i8], align 16
; CHECK-DAG:     [[SB:%tape.stack[0-9]*]] = alloca [4096 x i8], align 16
; CHECK:         store { ptr, i64, i64 } zeroinitializer, ptr [[T1:%tape[0-9]*]], align 8
; CHECK-NEXT:    call void @umbra.tape.start(ptr [[T1]], ptr {{%tape.stack[0-9]*}})
; CHECK-NEXT:    call double @augfwd.f.a{{[.a-z]*}}(ptr [[T1]], double %x)
; CHECK-NEXT:    call void @umbra.tape.settle(ptr [[T1]], ptr @umbra.tape.hint)
; CHECK-NEXT:    call { double } @adjoint.f.a{{[.a-z]*}}(ptr [[T1]], double %x, double 1.000000e+00)
; CHECK-NEXT:    call void @umbra.tape.free(ptr [[T1]])
; CHECK:         store { ptr, i64, i64 } zeroinitializer, ptr [[T2:%tape[0-9]*]], align 8
; CHECK-NEXT:    call void @umbra.tape.start(ptr [[T2]], ptr {{%tape.stack[0-9]*}})
; CHECK-NEXT:    call double @augfwd.g.a{{[.a-z]*}}(ptr [[T2]], double %x)
; CHECK-NEXT:    call void @umbra.tape.settle(ptr [[T2]], ptr @umbra.tape.hint)
; CHECK-NEXT:    call { double } @adjoint.g.a{{[.a-z]*}}(ptr [[T2]], double %x, double 1.000000e+00)
; CHECK-NEXT:    call void @umbra.tape.free(ptr [[T2]])

; Exactly one definition of each helper, internal. The tape's integers are loaded with their
; own TBAA type, so an outer gradient (reverse over reverse) knows they are not float bits.
; push and pop are small enough to inline; their rare cases (a new chunk, going back to the
; previous chunk) are cold, out-of-line helpers.
; CHECK-NOT:   define {{.*}}@umbra.tape.
; Growing never moves what was pushed (no realloc): a new chunk of max(2 * capacity, bytes +
; 32 + 4096) bytes starts with the tape as it was (previous chunk, size, capacity).
; CHECK:       define internal ptr @umbra.tape.grow(ptr %0, i64 %1) [[COLD:#[0-9]+]] {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[GSIZEP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 1
; CHECK-NEXT:    [[GCAPP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 2
; CHECK-NEXT:    [[SIZE:%[0-9]+]] = load i64, ptr [[GSIZEP]], align 8, !tbaa [[TBAA:![0-9]+]]
; CHECK-NEXT:    [[CAP:%[0-9]+]] = load i64, ptr [[GCAPP]], align 8, !tbaa [[TBAA]]
; CHECK-NEXT:    [[DBL:%[0-9]+]] = add i64 [[CAP]], [[CAP]]
; CHECK-NEXT:    [[MIN:%[0-9]+]] = add i64 %1, 4128
; CHECK-NEXT:    [[BIG:%[0-9]+]] = icmp ugt i64 [[DBL]], [[MIN]]
; CHECK-NEXT:    [[NCAP:%[0-9]+]] = select i1 [[BIG]], i64 [[DBL]], i64 [[MIN]]
; Growing leaves the hints alone: which hint a tape starts from is known where it settles
; (umbra.tape.settle, below), not here.
; CHECK-NEXT:    [[CHUNK:%[0-9]+]] = call ptr @umbra.tape.chunk.alloc(i64 [[NCAP]])
; CHECK-NEXT:    [[OLD:%[0-9]+]] = load ptr, ptr %0, align 8
; CHECK-NEXT:    store ptr [[OLD]], ptr [[CHUNK]], align 8
; CHECK-NEXT:    [[HS:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr [[CHUNK]], i64 0, i32 1
; CHECK-NEXT:    store i64 [[SIZE]], ptr [[HS]], align 8
; CHECK-NEXT:    [[HC:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr [[CHUNK]], i64 0, i32 2
; CHECK-NEXT:    store i64 [[CAP]], ptr [[HC]], align 8
; A chunk from the pool is kept by default (its discard mark cleared: a spare's may be set).
; CHECK-NEXT:    [[MARK:%[0-9]+]] = getelementptr inbounds i8, ptr [[CHUNK]], i64 24
; CHECK-NEXT:    store i64 0, ptr [[MARK]], align 8, !tbaa [[TBAA]]
; CHECK-NEXT:    store ptr [[CHUNK]], ptr %0, align 8
; CHECK-NEXT:    store i64 [[NCAP]], ptr [[GCAPP]], align 8
; The slot is right after the new chunk's header; the size is the header and the bytes.
; CHECK-NEXT:    [[GEND:%[0-9]+]] = add i64 %1, 32
; CHECK-NEXT:    store i64 [[GEND]], ptr [[GSIZEP]], align 8
; CHECK-NEXT:    [[GSLOT:%[0-9]+]] = getelementptr inbounds i8, ptr [[CHUNK]], i64 32
; CHECK-NEXT:    ret ptr [[GSLOT]]
; CHECK-NEXT:  }
; CHECK-NOT:   define {{.*}}@umbra.tape.grow
; The slot is at the old end; the size grows.
; CHECK:       define internal ptr @umbra.tape.push(ptr %0, i64 %1) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[SIZEP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 1
; CHECK-NEXT:    [[CAPP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 2
; CHECK-NEXT:    [[PSZ:%[0-9]+]] = load i64, ptr [[SIZEP]], align 8, !tbaa [[TBAA]]
; CHECK-NEXT:    [[PCAP:%[0-9]+]] = load i64, ptr [[CAPP]], align 8, !tbaa [[TBAA]]
; CHECK-NEXT:    [[NEW:%[0-9]+]] = add i64 [[PSZ]], %1
; CHECK-NEXT:    [[FULL:%[0-9]+]] = icmp ugt i64 [[NEW]], [[PCAP]]
; CHECK-NEXT:    br i1 [[FULL]], label %grow, label %fits
; CHECK:       fits:
; CHECK-NEXT:    store i64 [[NEW]], ptr [[SIZEP]], align 8
; CHECK-NEXT:    [[DATA:%[0-9]+]] = load ptr, ptr %0, align 8
; CHECK-NEXT:    [[SLOT:%[0-9]+]] = getelementptr inbounds i8, ptr [[DATA]], i64 [[PSZ]]
; CHECK-NEXT:    ret ptr [[SLOT]]
; CHECK:       grow:
; CHECK-NEXT:    [[GROWN:%[0-9]+]] = call ptr @umbra.tape.grow(ptr %0, i64 %1)
; CHECK-NEXT:    ret ptr [[GROWN]]
; CHECK-NEXT:  }
; CHECK-NOT:   define {{.*}}@umbra.tape.push
; A pop from an empty chunk frees it and goes back to the previous one (the first chunk stays:
; only a pop of nothing reaches it empty); the slot is at the new end, after the size shrinks.
; CHECK:       define internal i64 @umbra.tape.back(ptr %0) [[COLD]] {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[BSIZEP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 1
; CHECK-NEXT:    [[CUR:%[0-9]+]] = load ptr, ptr %0, align 8
; CHECK-NEXT:    [[PREV:%[0-9]+]] = load ptr, ptr [[CUR]], align 8
; CHECK-NEXT:    [[FIRST:%[0-9]+]] = icmp eq ptr [[PREV]], null
; CHECK-NEXT:    br i1 [[FIRST]], label %first, label %back
; CHECK:       back:
; CHECK:         store ptr [[PREV]], ptr %0, align 8
; CHECK:         call void @umbra.tape.chunk.free(ptr [[CUR]])
; CHECK-NEXT:    ret i64
; CHECK:       first:
; CHECK-NEXT:    ret i64 32
; CHECK:       define internal ptr @umbra.tape.pop(ptr %0, i64 %1) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[PSIZEP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %0, i64 0, i32 1
; CHECK-NEXT:    [[PSIZE:%[0-9]+]] = load i64, ptr [[PSIZEP]], align 8, !tbaa [[TBAA]]
; CHECK-NEXT:    [[EMPTY:%[0-9]+]] = icmp eq i64 [[PSIZE]], 32
; CHECK-NEXT:    br i1 [[EMPTY]], label %previous, label %[[DONE:done]]
; CHECK:       previous:
; CHECK-NEXT:    [[BACK:%[0-9]+]] = call i64 @umbra.tape.back(ptr %0)
; CHECK-NEXT:    br label %done
; CHECK:       done:
; CHECK-NEXT:    [[PAT:%[0-9]+]] = phi i64 [ [[PSIZE]], %entry ], [ [[BACK]], %previous ]
; CHECK-NEXT:    [[PNEW:%[0-9]+]] = sub i64 [[PAT]], %1
; CHECK-NEXT:    store i64 [[PNEW]], ptr [[PSIZEP]], align 8
; CHECK-NEXT:    [[PDATA:%[0-9]+]] = load ptr, ptr %0, align 8
; CHECK-NEXT:    [[PSLOT:%[0-9]+]] = getelementptr inbounds i8, ptr [[PDATA]], i64 [[PNEW]]
; CHECK-NEXT:    ret ptr [[PSLOT]]
; CHECK-NEXT:  }
; CHECK-NOT:   define {{.*}}@umbra.tape.{{push|pop}}
; A gradient tape starts on the stack chunk while the hint is at most 1 KiB (the size of the tape
; before it, -1, marks it as not the heap's), else on a heap chunk as large as the hint.
; CHECK:       define internal void @umbra.tape.start(ptr %0, ptr %1) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[SH:%[0-9]+]] = load atomic i64, ptr @umbra.tape.hint monotonic, align 8
; CHECK-NEXT:    [[SBIG:%[0-9]+]] = icmp ugt i64 [[SH]], 4096
; CHECK-NEXT:    br i1 [[SBIG]], label %allocate, label %on.stack
; CHECK:       allocate:
; CHECK-NEXT:    [[SCHUNK:%[0-9]+]] = call ptr @umbra.tape.chunk.alloc(i64 [[SH]])
; CHECK:       on.stack:
; CHECK-NEXT:    store { ptr, i64, i64 } zeroinitializer, ptr %1, align 8
; CHECK-NEXT:    [[MARKP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr %1, i64 0, i32 1
; CHECK-NEXT:    store i64 -1, ptr [[MARKP]], align 8
; CHECK:       done:
; CHECK-NEXT:    [[FIRSTC:%[0-9]+]] = phi ptr [ [[SCHUNK]], %allocate ], [ %1, %on.stack ]
; CHECK-NEXT:    [[FCAP:%[0-9]+]] = phi i64 [ [[SH]], %allocate ], [ 4096, %on.stack ]
; CHECK-NEXT:    store ptr [[FIRSTC]], ptr %0, align 8
; The tape's chunks are freed, from the current one back through the previous-chunk links
; in their headers, except the stack chunk: the chunk the last pop emptied need not be the
; first (a first push too large for the first chunk leaves that one empty behind it).
; CHECK:       define internal void @umbra.tape.free(ptr %0) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[FD:%[0-9]+]] = load ptr, ptr %0, align 8
; CHECK-NEXT:    br label %walk
; CHECK:       walk:
; CHECK-NEXT:    [[FC:%[0-9]+]] = phi ptr [ [[FD]], %entry ], [ [[FP:%[0-9]+]], %next ]
; CHECK-NEXT:    [[FHAS:%[0-9]+]] = icmp ne ptr [[FC]], null
; CHECK-NEXT:    br i1 [[FHAS]], label %some, label %done
; CHECK:       some:
; CHECK-NEXT:    [[FP]] = load ptr, ptr [[FC]], align 8
; CHECK-NEXT:    [[FMP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr [[FC]], i64 0, i32 1
; CHECK-NEXT:    [[FM:%[0-9]+]] = load i64, ptr [[FMP]], align 8
; CHECK-NEXT:    [[FST:%[0-9]+]] = icmp eq i64 [[FM]], -1
; CHECK-NEXT:    br i1 [[FST]], label %next, label %heap
; CHECK:       heap:
; CHECK-NEXT:    call void @umbra.tape.chunk.free(ptr [[FC]])
; CHECK-NEXT:    br label %next
; CHECK:       attributes [[COLD]] = { cold noinline }
; CHECK:       [[TBAA]] = !{[[TY:![0-9]+]], [[TY]], i64 0}
; CHECK:       [[TY]] = !{!"umbra tape integer", {{![0-9]+}}, i64 0}

; The bytes a tape holds: walked back through the chunks' headers (each the tape before it,
; the first one's data null).
; HELD-LABEL: define internal i64 @umbra.tape.held(ptr %0)
; HELD:         [[SIZE:%[0-9]+]] = load i64, ptr {{%[0-9]+}}, align 8
; HELD-NEXT:    [[FIRST:%[0-9]+]] = load ptr, ptr %0, align 8
; HELD-NEXT:    br label %walk
; HELD:       walk:
; HELD-NEXT:    [[AT:%[0-9]+]] = phi ptr [ [[FIRST]], %entry ], [ [[PREV:%[0-9]+]], %step ]
; HELD-NEXT:    [[HELD:%[0-9]+]] = phi i64 [ [[SIZE]], %entry ], [ [[SUM:%[0-9]+]], %step ]
; HELD:       look:
; HELD-NEXT:    [[PREV]] = load ptr, ptr [[AT]], align 8
; HELD:       step:
; HELD-NEXT:    [[PSP:%[0-9]+]] = getelementptr inbounds { ptr, i64, i64 }, ptr [[AT]], i64 0, i32 1
; HELD-NEXT:    [[PS:%[0-9]+]] = load i64, ptr [[PSP]], align 8
; HELD-NEXT:    [[SUM]] = add i64 [[HELD]], [[PS]]
; HELD:       walked:
; HELD-NEXT:    ret i64 [[HELD]]

; Between the sweeps, a tape that outgrew its first chunk raises the hint to what it holds at
; its peak, and a sixteenth more: the next call starts on one chunk large enough.
; SETTLE-LABEL: define internal void @umbra.tape.settle(ptr %0, ptr %1)
; SETTLE:       grew:
; SETTLE-NEXT:    [[H:%[0-9]+]] = call i64 @umbra.tape.held(ptr %0)
; SETTLE-NEXT:    [[S:%[0-9]+]] = lshr i64 [[H]], 4
; SETTLE-NEXT:    [[W:%[0-9]+]] = add i64 [[H]], [[S]]
; SETTLE:         store atomic i64 {{%[0-9]+}}, ptr %1 monotonic, align 8
