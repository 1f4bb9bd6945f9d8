#pragma once
/// \file LandingCommand.h
/// Command-line registration of the landing study (issue 18).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "LandingStudy.h"

namespace propimpact::compare {

/// The parsed `landing` subcommand.
struct LandingCommand {
  LandingOptions options;
  std::string output = "-";
  std::string shard = "1/1";
  bool quiet = false;
  CLI::App* cmd = nullptr;
};

/// Adds `landing` to \p app; \p command must outlive the parse.
void addLandingCommand(CLI::App& app, LandingCommand& command);

/// Runs it when it was given; returns its exit status, or nothing.
[[nodiscard]] std::optional<int> runLandingCommand(LandingCommand& command);

}  // namespace propimpact::compare
