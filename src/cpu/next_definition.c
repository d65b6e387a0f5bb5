#include "next_definition.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int shim_in_this_library(const void *address)
{
    Dl_info mine, theirs;
    if (!dladdr((const void *)&shim_in_this_library, &mine) || !dladdr(address, &theirs))
        return 0;
    return mine.dli_fbase == theirs.dli_fbase;
}

typedef struct object_list {
    char **paths;
    int count, cap;
} object_list;

/* (under the dynamic linker's lock: only collects; dlopen must wait until it is released) */
static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_list *list = data;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0; /* the main program: the global scope covers it */
    uintptr_t mine = (uintptr_t)&shim_in_this_library;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && mine >= start && mine - start < ph->p_memsz)
            return 0; /* this library: never opened again (not even by reference) */
    }
    if (list->count == list->cap) {
        int cap = list->cap ? 2 * list->cap : 64;
        char **grown = realloc(list->paths, sizeof *grown * (size_t)cap);
        if (!grown)
            return 1;
        list->paths = grown;
        list->cap = cap;
    }
    list->paths[list->count] = strdup(info->dlpi_name);
    if (list->paths[list->count])
        list->count++;
    return 0;
}

void *shim_next_definition(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym && !shim_in_this_library(sym))
        return sym;
    object_list list = {0};
    dl_iterate_phdr(collect, &list);
    sym = NULL;
    for (int i = 0; i < list.count; i++) {
        if (!sym) {
            /* a reference of our own keeps the object (and so the function) loaded */
            void *h = dlopen(list.paths[i], RTLD_NOW | RTLD_NOLOAD);
            void *s = h ? dlsym(h, name) : NULL;
            if (s && !shim_in_this_library(s))
                sym = s;
            else if (h)
                dlclose(h);
        }
        free(list.paths[i]);
    }
    free(list.paths);
    return sym;
}
