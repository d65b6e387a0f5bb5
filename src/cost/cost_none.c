/* Built without CUDA: there is no GPU to model, so auto mode keeps every call on the CPU. */
#include <stddef.h>

#include "cost_model.h"

const shim_cost_model *shim_cost_model_get(void)
{
    return NULL;
}
