// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lpthread
// tape-pool.c with UMBRA_TAPE_KEEP=0: no spare is kept, every chunk goes back to the system.
#define KEEP_NONE
#include "tape-pool.c"
