#pragma once
/// \file MultiBodyCommand.h
/// Command-line registration of the multibody cradle study (issue 13).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "MultiBodyStudy.h"

namespace propimpact::compare {

/// The parsed multibody-cradle subcommand.
struct MultiBodyCommand {
  MultiBodyCradleOptions cradle;
  std::string output = "-";
  std::string shard = "1/1";
  bool quiet = false;
  CLI::App* cradleCmd = nullptr;
};

/// Adds `multibody-cradle` to \p app; \p command must outlive the parse.
void addMultiBodyCommand(CLI::App& app, MultiBodyCommand& command);

/// Runs it when it was given; returns its exit status, or nothing.
[[nodiscard]] std::optional<int> runMultiBodyCommand(MultiBodyCommand& command);

}  // namespace propimpact::compare
