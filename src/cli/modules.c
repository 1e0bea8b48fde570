/* SPDX-License-Identifier: MIT */
/* Loading the command's optional modules (modules.h). */
#define _DEFAULT_SOURCE /* readlink */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules.h"

#ifndef CDEVS_MODULE_DIR /* (the build sets both: the install prefix's and relative to its bin) */
#define CDEVS_MODULE_DIR "/usr/local/lib/cdevs"
#endif
#ifndef CDEVS_MODULE_RELDIR
#define CDEVS_MODULE_RELDIR "lib/cdevs"
#endif

#define MAX_MODULES 4
static struct {
  const char *name;
  void *handle;
} loaded[MAX_MODULES];

/* dlopen of dir/name; NULL with dlerror's words appended to why. */
static void *open_in(const char *dir, const char *name, char *why, size_t n) {
  char path[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return NULL;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    size_t used = strlen(why);
    const char *e = dlerror();
    snprintf(why + used, n - used, "%s%s", used ? "; " : "", e ? e : path);
  }
  return h;
}

static void *open_module(const char *name, char *err, size_t n) {
  for (int i = 0; i < MAX_MODULES && loaded[i].name; i++)
    if (!strcmp(loaded[i].name, name)) return loaded[i].handle;
  char why[1024] = "";
  void *h = NULL;
  const char *env = getenv("CDEVS_MODULE_DIR");
  if (env && *env) {
    h = open_in(env, name, why, sizeof why);
  } else {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
      exe[len] = 0;
      char *slash = strrchr(exe, '/');
      if (slash) *slash = 0;
      h = open_in(exe, name, why, sizeof why); /* a build tree */
      char up[PATH_MAX]; /* an installed tree, wherever its prefix was moved */
      if (!h && (size_t)snprintf(up, sizeof up, "%s/../%s", exe, CDEVS_MODULE_RELDIR) < sizeof up)
        h = open_in(up, name, why, sizeof why);
    }
    if (!h) h = open_in(CDEVS_MODULE_DIR, name, why, sizeof why);
  }
  if (!h) {
    snprintf(err, n, "the module %s could not be loaded (%s)", name, why);
    return NULL;
  }
  for (int i = 0; i < MAX_MODULES; i++)
    if (!loaded[i].name) {
      loaded[i].name = name, loaded[i].handle = h;
      break;
    }
  return h;
}

void *cli_module_sym(const char *name, const char *sym, char *err, size_t n) {
  void *h = open_module(name, err, n);
  if (!h) return NULL;
  void *p = dlsym(h, sym);
  if (!p) snprintf(err, n, "the module %s has no %s: it is not this cdevs' own", name, sym);
  return p;
}
