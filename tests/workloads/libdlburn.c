/* libdlburn - the library dlcycle loads, burns in and unloads. */
#include "burn.h"

__attribute__((noinline)) void dl_burn(double seconds)
{
	BURN_FOR(seconds);
}
