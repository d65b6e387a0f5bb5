#include "child_env.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

/* the length of the name in "NAME=value" or "NAME" */
static size_t name_len(const char *v)
{
    const char *eq = strchr(v, '=');
    return eq ? (size_t)(eq - v) : strlen(v);
}

/* whether entry ("NAME=value") names one of vars */
static int named(const char *entry, const char *const *vars)
{
    for (; *vars; vars++) {
        size_t len = name_len(*vars);
        if (strncmp(entry, *vars, len) == 0 && entry[len] == '=')
            return 1;
    }
    return 0;
}

char **test_child_env(const char *const *vars)
{
    size_t n = 0, extra = 0;
    while (environ[n])
        n++;
    while (vars[extra])
        extra++;
    char **env = calloc(n + extra + 1, sizeof *env);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (!named(environ[i], vars))
            env[j++] = environ[i];
    for (size_t v = 0; v < extra; v++)
        if (strchr(vars[v], '='))
            env[j++] = (char *)vars[v];
    return env;
}
