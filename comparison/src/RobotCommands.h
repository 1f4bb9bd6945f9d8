#pragma once
/// \file RobotCommands.h
/// Command-line registration of the robot studies (pantograph, walker, design).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "RobotStudies.h"

namespace propimpact::compare {

/// The parsed robot subcommands and their options.
struct RobotCommands {
  PantographOptions pantograph;
  WalkerOptions walker;
  DesignOptions design;
  std::string output = "-";  ///< -o of whichever subcommand ran.
  std::string shard = "1/1";
  bool quiet = false;
  CLI::App* pantographCmd = nullptr;
  CLI::App* walkerCmd = nullptr;
  CLI::App* designCmd = nullptr;
};

/// Adds the subcommands to \p app; \p commands must outlive the parse.
void addRobotCommands(CLI::App& app, RobotCommands& commands);

/// Runs the robot subcommand that was given; returns its exit status, or
/// nothing when none of them was given.
[[nodiscard]] std::optional<int> runRobotCommand(RobotCommands& commands);

}  // namespace propimpact::compare
