//! The shared rule-test harness: builds a tiny module calling one rule's function, requests its
//! forward derivative, JIT-compiles the result, and compares every partial derivative with a
//! central finite difference, in `double` and (for scalar math) `float`.
