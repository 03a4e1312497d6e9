// Only the reentrant (`_r`) API: every GEOS call in TriggerKit goes through a context
// handle owned by one Swift object, so the non-reentrant globals are hidden.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
