// libcurl (Debian's libcurl4-openssl-dev): outbound HTTP for the sync (RHEx, FHIR), TLS from the system's
// OpenSSL and CA store, the usual proxy variables.
//
// Loaded with dlopen at the first request, not linked: libcurl brings a dozen libraries of its own
// (GnuTLS for RTMP, Kerberos, libssh2, libidn2…), several MB of resident memory in a daemon whose
// sources may all be files. curl.h gives the types and constants; every call goes through the function
// pointers of `hcurl_api`, and the variadic ones (setopt, getinfo) through typed wrappers, since Swift
// cannot call a variadic C function.
#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

typedef size_t (*hcurl_data_callback)(char *data, size_t size, size_t count, void *user);

typedef struct hcurl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *easy);
    CURLcode (*easy_setopt)(CURL *easy, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *easy, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
} hcurl_api;

/// Loads libcurl and every function hreaderd calls; 0 when all are there (then `curl_global_init` has run).
static inline int hcurl_load(hcurl_api *api) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) return -1;
#define HCURL_SYMBOL(field, name) if (!(*(void **)(&api->field) = dlsym(library, name))) return -1;
    HCURL_SYMBOL(global_init, "curl_global_init")
    HCURL_SYMBOL(easy_init, "curl_easy_init")
    HCURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    HCURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    HCURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    HCURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    HCURL_SYMBOL(multi_init, "curl_multi_init")
    HCURL_SYMBOL(multi_cleanup, "curl_multi_cleanup")
    HCURL_SYMBOL(multi_add_handle, "curl_multi_add_handle")
    HCURL_SYMBOL(multi_remove_handle, "curl_multi_remove_handle")
    HCURL_SYMBOL(multi_perform, "curl_multi_perform")
    HCURL_SYMBOL(multi_poll, "curl_multi_poll")
    HCURL_SYMBOL(multi_wakeup, "curl_multi_wakeup")
    HCURL_SYMBOL(multi_info_read, "curl_multi_info_read")
    HCURL_SYMBOL(multi_setopt, "curl_multi_setopt")
    HCURL_SYMBOL(slist_append, "curl_slist_append")
    HCURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef HCURL_SYMBOL
    return api->global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

static inline CURL *hcurl_easy_init(const hcurl_api *a) { return a->easy_init(); }
static inline void hcurl_easy_cleanup(const hcurl_api *a, CURL *e) { a->easy_cleanup(e); }
static inline const char *hcurl_easy_strerror(const hcurl_api *a, CURLcode c) { return a->easy_strerror(c); }
static inline CURLM *hcurl_multi_init(const hcurl_api *a) { return a->multi_init(); }
static inline CURLMcode hcurl_multi_cleanup(const hcurl_api *a, CURLM *m) { return a->multi_cleanup(m); }
static inline CURLMcode hcurl_multi_add_handle(const hcurl_api *a, CURLM *m, CURL *e) { return a->multi_add_handle(m, e); }
static inline CURLMcode hcurl_multi_remove_handle(const hcurl_api *a, CURLM *m, CURL *e) { return a->multi_remove_handle(m, e); }
static inline CURLMcode hcurl_multi_perform(const hcurl_api *a, CURLM *m, int *running) { return a->multi_perform(m, running); }
static inline CURLMcode hcurl_multi_poll(const hcurl_api *a, CURLM *m, int timeout_ms, int *ready) {
    return a->multi_poll(m, NULL, 0, timeout_ms, ready);
}
static inline CURLMcode hcurl_multi_wakeup(const hcurl_api *a, CURLM *m) { return a->multi_wakeup(m); }
static inline CURLMsg *hcurl_multi_info_read(const hcurl_api *a, CURLM *m, int *queued) { return a->multi_info_read(m, queued); }
static inline struct curl_slist *hcurl_slist_append(const hcurl_api *a, struct curl_slist *l, const char *t) { return a->slist_append(l, t); }
static inline void hcurl_slist_free_all(const hcurl_api *a, struct curl_slist *l) { a->slist_free_all(l); }

static inline CURLcode hcurl_setopt_long(const hcurl_api *a, CURL *easy, CURLoption option, long value) {
    return a->easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_pointer(const hcurl_api *a, CURL *easy, CURLoption option, void *value) {
    return a->easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_string(const hcurl_api *a, CURL *easy, CURLoption option, const char *value) {
    return a->easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_offset(const hcurl_api *a, CURL *easy, CURLoption option, curl_off_t value) {
    return a->easy_setopt(easy, option, value);
}
static inline CURLcode hcurl_setopt_data_callback(const hcurl_api *a, CURL *easy, CURLoption option, hcurl_data_callback callback) {
    return a->easy_setopt(easy, option, callback);
}
static inline CURLcode hcurl_getinfo_long(const hcurl_api *a, CURL *easy, CURLINFO info, long *value) {
    return a->easy_getinfo(easy, info, value);
}
static inline CURLMcode hcurl_multi_setopt_long(const hcurl_api *a, CURLM *multi, CURLMoption option, long value) {
    return a->multi_setopt(multi, option, value);
}
