// The one door from Swift to libcurl: static inline wrappers for curl's variadic setopt/getinfo calls (Swift
// cannot call C variadics), one per argument type, named after the C function they wrap.
#ifndef NEWSATLAS_CCURL_SHIM_H
#define NEWSATLAS_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*ccurl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_callback(CURL *handle, CURLoption option, ccurl_write_callback value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
  return curl_multi_setopt(handle, option, value);
}

/// The CURLMsg's result code (a union member Swift cannot reach directly).
static inline CURLcode ccurl_msg_result(CURLMsg *message) { return message->data.result; }

#endif
