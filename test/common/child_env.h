/* The environment a test hands a child process of its own: the parent's, with some variables
 * replaced or removed. Built before fork (a child of a threaded process should only exec). */
#ifndef TEST_CHILD_ENV_H
#define TEST_CHILD_ENV_H

/* vars: NULL-terminated; "NAME=value" sets NAME, "NAME" removes it. Returns a calloc'd array (free
 * it, not its strings) pointing into environ and vars, which must outlive it. */
char **test_child_env(const char *const *vars);

#endif
