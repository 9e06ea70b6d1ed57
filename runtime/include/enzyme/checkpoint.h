/* <enzyme/checkpoint.h> for Umbra: Enzyme's spelling of <umbra/checkpoint.h> (same ABI). */
#include "../umbra/checkpoint.h"
