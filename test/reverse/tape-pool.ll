; Tapes take their chunks from the pool (tape/pool.rs), whose functions are emitted
; once every request is lowered: weak_odr, so that all objects of a program share one pool per
; thread (thread-local spares), and `umbra_release_tapes` is defined where a program calls it.
; RUN: %opt-umbra -passes=umbra %s -o %t.plugin.ll
; RUN: %umbra %s --emit=llvm-ir -O0 -o %t.driver.ll
; RUN: FileCheck %s < %t.plugin.ll
; RUN: FileCheck %s < %t.driver.ll
; RUN: FileCheck %s --check-prefix=ALLOC < %t.plugin.ll
; RUN: FileCheck %s --check-prefix=ALLOC < %t.driver.ll
; RUN: FileCheck %s --check-prefix=FREE < %t.plugin.ll
; RUN: FileCheck %s --check-prefix=FREE < %t.driver.ll
; RUN: FileCheck %s --check-prefix=REL < %t.plugin.ll
; RUN: FileCheck %s --check-prefix=REL < %t.driver.ll

declare double @__enzyme_autodiff(ptr, ...)
declare double @sin(double)
declare void @umbra_release_tapes()

define double @f(double %x) {
  %s = call double @sin(double %x)
  %c = fcmp olt double %s, 0.5
  %r = select i1 %c, double %s, double %x
  ret double %r
}

define double @caller(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  call void @umbra_release_tapes()
  ret double %r
}

; CHECK-DAG: @umbra.tape.spares = weak_odr thread_local global [16 x ptr] zeroinitializer
; CHECK-DAG: @umbra.tape.spare.sizes = weak_odr thread_local global [16 x i64] zeroinitializer
; CHECK-DAG: @umbra.tape.keep = weak_odr global i64 -1
; CHECK-DAG: @umbra.tape.spare.registered = weak_odr thread_local global i8 0

; The first heap chunk comes from the pool, and goes back to it.
; CHECK-LABEL: define internal void @umbra.tape.start(
; CHECK:         call ptr @umbra.tape.chunk.alloc(i64
; Where the tape is at its peak, the chunks smaller than the hint it raised are marked.
; CHECK-LABEL: define internal void @umbra.tape.settle(
; CHECK:       walk:
; CHECK:       mark:
; CHECK-NEXT:    [[SMALL:%[0-9]+]] = icmp ult i64 %{{[0-9]+}}, [[WANTED:%[0-9]+]]
; CHECK-NEXT:    [[FLAG:%[0-9]+]] = zext i1 [[SMALL]] to i64
; CHECK-NEXT:    [[MP:%[0-9]+]] = getelementptr inbounds i8, ptr %{{[0-9]+}}, i64 24
; CHECK-NEXT:    store i64 [[FLAG]], ptr [[MP]], align 8
; CHECK-LABEL: define internal void @umbra.tape.free(
; CHECK:         call void @umbra.tape.chunk.free(ptr

; The smallest spare that fits and is not more than four times too large, taken out of its
; slot; on a miss, the spares smaller than the request are freed (outgrown) and a new block
; is offered huge pages. The spares' sizes are read from their array, not asked of malloc
; (sixteen calls of malloc_usable_size per allocation cost a small gradient 3% of its time).
; ALLOC-LABEL: define weak_odr ptr @umbra.tape.chunk.alloc(i64 %0)
; ALLOC-NOT:     malloc_usable_size
; ALLOC:         load ptr, ptr @umbra.tape.spares,
; ALLOC:         load i64, ptr @umbra.tape.spare.sizes,
; ALLOC:         load ptr, ptr getelementptr inbounds ([16 x ptr], ptr @umbra.tape.spares, i64 0, i64 15)
; ALLOC:         load i64, ptr getelementptr inbounds ([16 x i64], ptr @umbra.tape.spare.sizes, i64 0, i64 15)
; ALLOC-NOT:     malloc_usable_size
; ALLOC:       take:
; ALLOC-NEXT:    store ptr null, ptr %{{[0-9]+}}
; ALLOC-NEXT:    store i64 0, ptr %{{[0-9]+}}
; ALLOC-NEXT:    ret ptr
; ALLOC:       fresh:
; ALLOC:         call void @free(ptr
; ALLOC:         call ptr @malloc(i64 %0)
; ALLOC:         call i32 @madvise(ptr {{.*}}, i32 14)

; Kept when within the limit and not marked as outgrown by its tape (the header's i64 at
; byte 24), in an empty slot or in place of the smallest spare (freed), with its size,
; measured once; otherwise freed.
; FREE-LABEL: define weak_odr void @umbra.tape.chunk.free(ptr %0)
; FREE:         [[SIZE:%[0-9]+]] = call i64 @malloc_usable_size(ptr %0)
; FREE-NEXT:    [[LIMIT:%[0-9]+]] = call i64 @umbra.tape.keep.limit()
; FREE-NEXT:    [[OVER:%[0-9]+]] = icmp ugt i64 [[SIZE]], [[LIMIT]]
; FREE-NEXT:    [[MARKP:%[0-9]+]] = getelementptr inbounds i8, ptr %0, i64 24
; FREE-NEXT:    [[MARK:%[0-9]+]] = load i64, ptr [[MARKP]], align 8
; FREE-NEXT:    [[MARKED:%[0-9]+]] = icmp ne i64 [[MARK]], 0
; FREE-NEXT:    [[GIVE:%[0-9]+]] = or i1 [[OVER]], [[MARKED]]
; FREE-NEXT:    br i1 [[GIVE]], label %release, label %pool
; FREE-NOT:     malloc_usable_size
; FREE:       put:
; FREE-NEXT:    call void @free(ptr
; FREE-NEXT:    store ptr %0, ptr %{{[0-9]+}}
; FREE-NEXT:    store i64 [[SIZE]], ptr %{{[0-9]+}}
; FREE-NEXT:    call void @umbra.tape.spare.register()
; FREE:       release:
; FREE-NEXT:    call void @free(ptr %0)

; REL-LABEL: define weak_odr void @umbra_release_tapes()
; REL:         store ptr null, ptr @umbra.tape.spares,
; REL-NEXT:    store i64 0, ptr @umbra.tape.spare.sizes,
; REL-NEXT:    call void @free(
; REL:         store ptr null, ptr getelementptr inbounds ([16 x ptr], ptr @umbra.tape.spares, i64 0, i64 15)
; REL:         call void @free(
