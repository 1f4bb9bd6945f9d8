// Whether this translation unit is compiled with AddressSanitizer: GCC says so
// with __SANITIZE_ADDRESS__, clang only through __has_feature.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROPIMPACT_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PROPIMPACT_TEST_UNDER_ASAN 1
#endif
