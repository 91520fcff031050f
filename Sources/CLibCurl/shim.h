// libcurl (Debian's libcurl4-openssl-dev): outbound HTTP for the sync (RHEx, FHIR), TLS from the system's
// OpenSSL and CA store, the usual proxy variables. curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt are variadic, which Swift cannot call: these typed wrappers can.
#include <curl/curl.h>

typedef size_t (*hcurl_data_callback)(char *data, size_t size, size_t count, void *user);

static inline CURLcode hcurl_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_data_callback(CURL *easy, CURLoption option, hcurl_data_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}
static inline CURLcode hcurl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode hcurl_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode hcurl_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLMcode hcurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
