#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct ccurl_functions ccurl_functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
// What failed, for a caller that words it itself (`ccurl_load_failure`): its kind and the name it concerns.
static int failure_kind;
static const char *failure_detail;

// Resolves one function into the table, or leaves `load` with `failure` set when the library lacks it.
#define CCURL_RESOLVE(field, name)                                                      \
  do {                                                                                  \
    *(void **)(&ccurl_functions.field) = dlsym(library, name);                          \
    if (ccurl_functions.field == NULL) {                                                \
      failure = "The libcurl loaded lacks " name "; NewsAtlas needs libcurl 7.85 or "  \
                "later (Debian 12's libcurl4).";                                        \
      failure_kind = CCURL_LOAD_LACKS_FUNCTION;                                         \
      failure_detail = name;                                                            \
      return;                                                                           \
    }                                                                                   \
  } while (0)

static char message[512];

static void load(void) {
  // NEWSATLAS_LIBCURL names another build of libcurl 7.85 or later (a path, or a name the loader finds).
  const char *name = getenv("NEWSATLAS_LIBCURL");
  if (name == NULL || *name == '\0') name = "libcurl.so.4";
  // RTLD_LOCAL: curl's symbols stay out of the global namespace; nothing is ever unloaded.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(message, sizeof message,
             "%.200s could not be loaded; install libcurl (Debian: apt-get install libcurl4) or set "
             "NEWSATLAS_LIBCURL to its path to fetch news.",
             name);
    failure = message;
    failure_kind = CCURL_LOAD_CANNOT_OPEN;
    failure_detail = name;
    return;
  }
  CCURL_RESOLVE(global_init, "curl_global_init");
  CCURL_RESOLVE(easy_init, "curl_easy_init");
  CCURL_RESOLVE(easy_cleanup, "curl_easy_cleanup");
  CCURL_RESOLVE(easy_reset, "curl_easy_reset");
  CCURL_RESOLVE(easy_setopt, "curl_easy_setopt");
  CCURL_RESOLVE(easy_getinfo, "curl_easy_getinfo");
  CCURL_RESOLVE(easy_strerror, "curl_easy_strerror");
  CCURL_RESOLVE(multi_init, "curl_multi_init");
  CCURL_RESOLVE(multi_cleanup, "curl_multi_cleanup");
  CCURL_RESOLVE(multi_setopt, "curl_multi_setopt");
  CCURL_RESOLVE(multi_add_handle, "curl_multi_add_handle");
  CCURL_RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
  CCURL_RESOLVE(multi_perform, "curl_multi_perform");
  CCURL_RESOLVE(multi_poll, "curl_multi_poll");
  CCURL_RESOLVE(multi_wakeup, "curl_multi_wakeup");
  CCURL_RESOLVE(multi_info_read, "curl_multi_info_read");
  CCURL_RESOLVE(multi_strerror, "curl_multi_strerror");
  CCURL_RESOLVE(slist_append, "curl_slist_append");
  CCURL_RESOLVE(slist_free_all, "curl_slist_free_all");
  if (ccurl_functions.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    failure = "libcurl could not initialise (curl_global_init failed).";
    failure_kind = CCURL_LOAD_INIT_FAILED;
  }
}

const char *ccurl_load(void) {
  pthread_once(&once, load);
  return failure;
}

int ccurl_load_failure(const char **detail) {
  pthread_once(&once, load);
  if (detail != NULL) *detail = failure_detail;
  return failure_kind;
}
