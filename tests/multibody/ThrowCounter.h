#pragma once
// Counts every C++ exception thrown in this test program, caught or not
// (ThrowCounter.cpp wraps the C++ runtime's __cxa_throw): issue 12's rule is
// that nothing is thrown inside a step, and a throw caught inside the library
// never reaches a test any other way.

namespace propimpact::testing {

/// Exceptions thrown so far, by anything in this program.
long exceptionsThrown();

}  // namespace propimpact::testing
