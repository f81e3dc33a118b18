// A bare libcurl multi loop in C: the baseline the Swift client is measured against.
#ifndef CURL_LOOP_H
#define CURL_LOOP_H
/// GETs `url` `total` times with `concurrency` transfers in flight; returns the seconds taken, or -1.
double curl_loop_run(const char *url, int total, int concurrency);
#endif
