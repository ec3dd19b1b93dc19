// libcurl, loaded on first use. pts-native links ~45 shared libraries, and libcurl with its TLS,
// Kerberos, LDAP, SSH and IDN dependencies is half of them: loading and relocating those cost
// every command ~5-10 ms and ~4.5 MB of resident memory, though only downloads and the results
// client ever use them. Linking `ptsn_lazy_curl` instead of CURL::libcurl keeps callers'
// code unchanged (<curl/curl.h> and the usual curl_* calls, see lazy_curl.cc for the list):
// those functions are defined here and forward to libcurl.so.4, opened with dlopen() the first
// time one is called. When libcurl cannot be loaded every call fails cleanly
// (CURLE_FAILED_INIT / nullptr) and curl_easy_strerror() says why.
#pragma once

#include <string>

namespace ptsn {

// True once libcurl has been loaded successfully (loads it if it has not been tried yet).
bool LazyCurlAvailable();
// Why loading failed (dlerror() text), "" when it succeeded or was not tried.
std::string LazyCurlError();

}  // namespace ptsn
