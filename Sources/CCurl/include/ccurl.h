// The one door from Swift to libcurl. libcurl is opened on first use (`ccurl_load`), not at start-up: linked
// the usual way, it and the ~25 libraries it needs were bound by the dynamic loader, and their constructors
// run, before every command, 4.5 ms of a 15 ms start for commands that never fetch. Every call goes through
// the table `ccurl_load` fills; the static inline wrappers are named after the C function they wrap, with one
// per argument type for curl's variadic setopt/getinfo calls (Swift cannot call C variadics).
#ifndef NEWSATLAS_CCURL_H
#define NEWSATLAS_CCURL_H

#include <curl/curl.h>
#include <stddef.h>

typedef size_t (*ccurl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

/// libcurl's functions that NewsAtlas calls, resolved from libcurl.so.4 by `ccurl_load`.
struct ccurl_functions {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *handle);
  void (*easy_reset)(CURL *handle);
  CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
  CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
  const char *(*easy_strerror)(CURLcode code);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_cleanup)(CURLM *handle);
  CURLMcode (*multi_setopt)(CURLM *handle, CURLMoption option, ...);
  CURLMcode (*multi_add_handle)(CURLM *multi, CURL *easy);
  CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *easy);
  CURLMcode (*multi_perform)(CURLM *handle, int *running);
  CURLMcode (*multi_poll)(CURLM *handle, struct curl_waitfd extra[], unsigned int count, int timeoutMs,
                          int *ready);
  CURLMcode (*multi_wakeup)(CURLM *handle);
  CURLMsg *(*multi_info_read)(CURLM *handle, int *remaining);
  const char *(*multi_strerror)(CURLMcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
  void (*slist_free_all)(struct curl_slist *list);
};

/// Filled once by `ccurl_load`; read only after it returned NULL.
extern struct ccurl_functions ccurl_functions;

/// Opens libcurl.so.4 (or the library the environment's `NEWSATLAS_LIBCURL` names), resolves every function
/// above and calls curl_global_init(CURL_GLOBAL_DEFAULT), once per process (later calls return the first
/// call's answer). Returns NULL on success, otherwise one sentence saying what failed (static storage).
const char *ccurl_load(void);

/// What `ccurl_load` failed at, for a caller that words it in its reader's language: 0 (nothing failed),
/// `CCURL_LOAD_CANNOT_OPEN` (`*detail`: the library's name as given), `CCURL_LOAD_LACKS_FUNCTION` (`*detail`:
/// the function), `CCURL_LOAD_INIT_FAILED` (curl_global_init).
enum { CCURL_LOAD_CANNOT_OPEN = 1, CCURL_LOAD_LACKS_FUNCTION = 2, CCURL_LOAD_INIT_FAILED = 3 };
int ccurl_load_failure(const char **detail);

static inline CURL *ccurl_easy_init(void) { return ccurl_functions.easy_init(); }
static inline void ccurl_easy_cleanup(CURL *handle) { ccurl_functions.easy_cleanup(handle); }
static inline void ccurl_easy_reset(CURL *handle) { ccurl_functions.easy_reset(handle); }
static inline const char *ccurl_easy_strerror(CURLcode code) { return ccurl_functions.easy_strerror(code); }

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return ccurl_functions.easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return ccurl_functions.easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return ccurl_functions.easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
  return ccurl_functions.easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                        ccurl_write_callback value) {
  return ccurl_functions.easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return ccurl_functions.easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
  return ccurl_functions.easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
  return ccurl_functions.easy_getinfo(handle, info, value);
}

static inline CURLM *ccurl_multi_init(void) { return ccurl_functions.multi_init(); }
static inline CURLMcode ccurl_multi_cleanup(CURLM *handle) { return ccurl_functions.multi_cleanup(handle); }

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
  return ccurl_functions.multi_setopt(handle, option, value);
}

static inline CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *easy) {
  return ccurl_functions.multi_add_handle(multi, easy);
}

static inline CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *easy) {
  return ccurl_functions.multi_remove_handle(multi, easy);
}

static inline CURLMcode ccurl_multi_perform(CURLM *handle, int *running) {
  return ccurl_functions.multi_perform(handle, running);
}

static inline CURLMcode ccurl_multi_poll(CURLM *handle, struct curl_waitfd extra[], unsigned int count,
                                         int timeoutMs, int *ready) {
  return ccurl_functions.multi_poll(handle, extra, count, timeoutMs, ready);
}

static inline CURLMcode ccurl_multi_wakeup(CURLM *handle) { return ccurl_functions.multi_wakeup(handle); }

static inline const char *ccurl_multi_strerror(CURLMcode code) { return ccurl_functions.multi_strerror(code); }

static inline CURLMsg *ccurl_multi_info_read(CURLM *handle, int *remaining) {
  return ccurl_functions.multi_info_read(handle, remaining);
}

static inline struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string) {
  return ccurl_functions.slist_append(list, string);
}

static inline void ccurl_slist_free_all(struct curl_slist *list) { ccurl_functions.slist_free_all(list); }

/// The CURLMsg's result code (a union member Swift cannot reach directly).
static inline CURLcode ccurl_msg_result(CURLMsg *message) { return message->data.result; }

#endif
