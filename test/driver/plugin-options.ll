; Pass parameters reach the Rust side: valid ones are accepted, and a bad one is a clean error
; (exit status 1, no crash dump). Lists inside umbra<...> use repeated keys: the pipeline
; parser splits on commas before the plugin sees the text.
; RUN: %opt-umbra '-passes=umbra<inactive=f;inactive=g;reopt=O1>' %s | FileCheck %s --check-prefix=OK
; RUN: not %opt-umbra '-passes=umbra<bogus=1>' %s 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: env UMBRA_OPTIONS=reopt=O7 not %opt-umbra -passes=umbra %s 2>&1 | FileCheck %s --check-prefix=ENV

define double @id(double %x) {
  ret double %x
}

; OK-LABEL: define double @id(
; BAD: umbra: error: unknown umbra option 'bogus=1'
; BAD-NOT: Stack dump
; ENV: umbra: error: bad umbra option 'reopt=O7'
