#include "gpu_kernel_choice.h"

#include <stdatomic.h>
#include <string.h>

#include "log.h"

void shim_report_unknown_kernel(const char *variable, const char *name, const void *variants, int count,
                                size_t stride)
{
    static atomic_int told;
    if (atomic_exchange(&told, 1))
        return;
    char known[768] = "";
    for (int i = 0; i < count; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        const char *known_name = *(const char *const *)((const char *)variants + (size_t)i * stride);
        strncat(known, known_name, sizeof known - strlen(known) - 1);
    }
    char shown[SHIM_SHOWN_VALUE];
    shim_log("error: %s=%s names no kernel; known: %s. The selector's choice runs instead.", variable,
             shim_show_value(name, shown),
             known);
}
