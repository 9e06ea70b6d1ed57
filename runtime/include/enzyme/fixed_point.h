/* <enzyme/fixed_point.h> for Umbra: Enzyme's spelling of <umbra/fixed_point.h>. */
#include "../umbra/fixed_point.h"
