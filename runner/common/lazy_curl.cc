// Forwarders for the libcurl functions pts-native uses (see lazy_curl.h). Using another curl
// function means adding a CurlApi member, its Bind() and a forwarder below.
#define CURL_DISABLE_TYPECHECK 1  // the typecheck macros would rename our definitions
#include "runner/common/lazy_curl.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <cstdarg>
#include <mutex>

namespace ptsn {

namespace {

struct CurlApi {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

struct Loaded {
  CurlApi api{};
  bool ok = false;
  std::string error;
};

template <typename F>
bool Bind(void* lib, const char* name, F& slot, std::string& error) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (!slot && error.empty()) error = std::string("libcurl.so.4 lacks ") + name;
  return slot != nullptr;
}

const Loaded& Load() {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      loaded.error = std::string("cannot load libcurl.so.4: ") + (why ? why : "unknown error");
      return;
    }
    CurlApi& a = loaded.api;
    std::string& e = loaded.error;
    loaded.ok = Bind(lib, "curl_global_init", a.global_init, e) & Bind(lib, "curl_easy_init", a.easy_init, e) &
                Bind(lib, "curl_easy_setopt", a.easy_setopt, e) & Bind(lib, "curl_easy_perform", a.easy_perform, e) &
                Bind(lib, "curl_easy_getinfo", a.easy_getinfo, e) &
                Bind(lib, "curl_easy_cleanup", a.easy_cleanup, e) &
                Bind(lib, "curl_easy_strerror", a.easy_strerror, e) &
                Bind(lib, "curl_slist_append", a.slist_append, e) &
                Bind(lib, "curl_slist_free_all", a.slist_free_all, e);
  });
  return loaded;
}

const CurlApi* Api() {
  const Loaded& l = Load();
  return l.ok ? &l.api : nullptr;
}

}  // namespace

bool LazyCurlAvailable() { return Load().ok; }
std::string LazyCurlError() { return Load().error; }

}  // namespace ptsn

extern "C" {

CURLcode curl_global_init(long flags) {
  const auto* a = ptsn::Api();
  return a ? a->global_init(flags) : CURLE_FAILED_INIT;
}

CURL* curl_easy_init() {
  const auto* a = ptsn::Api();
  return a ? a->easy_init() : nullptr;
}

// The one variadic argument is a long, an object or function pointer or a curl_off_t, told apart
// by the option number's range, exactly as libcurl itself reads it.
CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  const auto* a = ptsn::Api();
  if (!a || !curl) return CURLE_FAILED_INIT;
  va_list ap;
  va_start(ap, option);
  CURLcode rc;
  if (option < CURLOPTTYPE_OBJECTPOINT) {
    rc = a->easy_setopt(curl, option, va_arg(ap, long));
  } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
    rc = a->easy_setopt(curl, option, va_arg(ap, void*));
  } else if (option < CURLOPTTYPE_OFF_T) {
    rc = a->easy_setopt(curl, option, va_arg(ap, void (*)()));
  } else if (option < CURLOPTTYPE_BLOB) {
    rc = a->easy_setopt(curl, option, va_arg(ap, curl_off_t));
  } else {
    rc = a->easy_setopt(curl, option, va_arg(ap, void*));
  }
  va_end(ap);
  return rc;
}

CURLcode curl_easy_perform(CURL* curl) {
  const auto* a = ptsn::Api();
  return a && curl ? a->easy_perform(curl) : CURLE_FAILED_INIT;
}

// Every CURLINFO takes a pointer to where the answer goes.
CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  const auto* a = ptsn::Api();
  if (!a || !curl) return CURLE_FAILED_INIT;
  va_list ap;
  va_start(ap, info);
  void* out = va_arg(ap, void*);
  va_end(ap);
  return a->easy_getinfo(curl, info, out);
}

void curl_easy_cleanup(CURL* curl) {
  const auto* a = ptsn::Api();
  if (a && curl) a->easy_cleanup(curl);
}

const char* curl_easy_strerror(CURLcode code) {
  const ptsn::Loaded& l = ptsn::Load();
  return l.ok ? l.api.easy_strerror(code) : l.error.c_str();
}

curl_slist* curl_slist_append(curl_slist* list, const char* text) {
  const auto* a = ptsn::Api();
  return a ? a->slist_append(list, text) : nullptr;
}

void curl_slist_free_all(curl_slist* list) {
  const auto* a = ptsn::Api();
  if (a) a->slist_free_all(list);
}

}  // extern "C"
