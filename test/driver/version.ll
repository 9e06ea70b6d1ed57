; The driver identifies itself.
; RUN: %umbra --version | FileCheck %s
; CHECK: umbra {{[0-9]+\.[0-9]+\.[0-9]+}}
