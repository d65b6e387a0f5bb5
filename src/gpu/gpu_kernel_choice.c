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
    char known[100] = ""; /* (a message stays one short line: the first names, then "...") */
    for (int i = 0; i < count; i++) {
        const char *known_name = *(const char *const *)((const char *)variants + (size_t)i * stride);
        if (strlen(known) + strlen(known_name) + 8 > sizeof known) {
            strcat(known, ", ...");
            break;
        }
        strcat(known, i ? ", " : "");
        strcat(known, known_name);
    }
    char shown[SHIM_SHOWN_VALUE];
    shim_log("error: %s=%s names no kernel (known: %s); the selector's choice runs instead", variable,
             shim_show_value(name, shown),
             known);
}
