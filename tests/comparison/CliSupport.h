#pragma once
/// \file CliSupport.h
/// Running propimpact-compare from the tests: its exit status and stderr.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace propimpact::compare::cli {

/// A scratch path for \p name in the test's temporary directory. The process
/// id keeps apart tests that ctest -j runs at once (each in its own process)
/// and other checkouts' runs sharing /tmp: they raced on stderr.txt.
inline std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + fmt::format("propimpact_compare_{}_{}", getpid(), name);
}

/// The whole content of \p path ("" when missing).
inline std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Exit status of a finished command: its exit code, or −signal when a signal ended it.
inline int exitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

/// Runs propimpact-compare with \p arguments (a shell command line); returns
/// its exit status (exitStatus()), stderr in \p err.
inline int runCompare(const std::string& arguments, std::string* err = nullptr) {
  const std::string errPath = tempPath("stderr.txt");
  const std::string command = fmt::format("{} {} 2> {}", PROPIMPACT_COMPARE_EXE, arguments, errPath);
  const int status = std::system(command.c_str());
  if (err) *err = slurp(errPath);
  // std::system runs a shell: a child killed by a signal shows as 128 + signal.
  const int code = exitStatus(status);
  return code > 128 ? -(code - 128) : code;
}

}  // namespace propimpact::compare::cli
