/* Built without CUDA: there is no GPU to model, so auto mode keeps every call on the CPU. */
#include <stddef.h>
#include <stdio.h>

#include "cost_model.h"

int shim_cost_model_describe(char *out, size_t len, int probe)
{
    (void)probe;
    return snprintf(out, len, "none: built without CUDA (auto mode keeps every call on the CPU)");
}

const shim_cost_model *shim_cost_model_get(shim_origin o)
{
    (void)o;
    return NULL;
}
