#include "curl_loop.h"
#include <curl/curl.h>
#include <time.h>

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata) {
  (void)ptr;
  (void)userdata;
  return size * nmemb;
}

static CURL *start(CURLM *multi, const char *url) {
  CURL *easy = curl_easy_init();
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_multi_add_handle(multi, easy);
  return easy;
}

double curl_loop_run(const char *url, int total, int concurrency) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM *multi = curl_multi_init();
  struct timespec begin, end;
  clock_gettime(CLOCK_MONOTONIC, &begin);
  int started = 0, done = 0, running = 0, failed = 0;
  while (started < total && started < concurrency) { start(multi, url); started++; }
  while (done < total) {
    curl_multi_perform(multi, &running);
    int queued;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued))) {
      if (message->msg != CURLMSG_DONE) continue;
      if (message->data.result != CURLE_OK) failed++;
      curl_multi_remove_handle(multi, message->easy_handle);
      curl_easy_cleanup(message->easy_handle);
      done++;
      if (started < total) { start(multi, url); started++; }
    }
    if (done < total) curl_multi_poll(multi, NULL, 0, 100, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  curl_multi_cleanup(multi);
  if (failed) return -1;
  return (end.tv_sec - begin.tv_sec) + (end.tv_nsec - begin.tv_nsec) / 1e9;
}
