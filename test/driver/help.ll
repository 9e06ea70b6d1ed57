; `umbra --help` names both modes' requests.
; RUN: %umbra --help | FileCheck %s
; CHECK: forward mode: `__enzyme_fwddiff`, `__umbra_fwddiff`; reverse mode: `__enzyme_autodiff`, `__umbra_autodiff`
; CHECK: Usage: umbra
