/* Where a name would have gone without shimblas: its next definition in the process. */
#ifndef SHIM_NEXT_DEFINITION_H
#define SHIM_NEXT_DEFINITION_H

/* The first definition of name after this library in the global scope (the LD_PRELOAD case); else
 * the first in any loaded object, in load order, that is not this library: libraries loaded with
 * RTLD_LOCAL, such as a Python extension's bundled BLAS, are not in the global scope. NULL when
 * the process has none. Takes the dynamic linker's locks: call it once per name. */
void *shim_next_definition(const char *name);

/* 1 when the address lies in this library */
int shim_in_this_library(const void *address);

#endif
