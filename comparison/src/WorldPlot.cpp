#include "WorldPlot.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace propimpact::compare {
namespace {

/// world_energy.gp: next to the installed program (share/propimpact/plots),
/// else in the source tree this program was built from.
std::filesystem::path plotScripts() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const auto installed = self.parent_path().parent_path() / "share" / "propimpact" / "plots";
    if (std::filesystem::exists(installed / "world_energy.gp")) return installed;
  }
  return PROPIMPACT_PLOTS_DIR;
}

/// gnuplot strings are single-quoted: refuse what would break out of them.
std::string quoted(const std::string& text) {
  if (text.find('\'') != std::string::npos)
    throw std::runtime_error("--plot: a path with a quote (') cannot be plotted");
  return "'" + text + "'";
}

}  // namespace

void plotWorld(const Table& table, const std::string& png, const std::string& name) {
  const std::string csv = png + ".csv";
  writeCsv(table, csv);
  std::vector<std::string> names;
  for (const auto& row : table.rows)
    if (std::find(names.begin(), names.end(), row.front()) == names.end()) names.push_back(row.front());
  const std::string solvers = fmt::format("{}", fmt::join(names, " "));
  const auto scripts = plotScripts();
  const std::string expression =
      fmt::format("data={}; out={}; solvers={}; name={}; scriptdir={}", quoted(csv), quoted(png), quoted(solvers),
                  quoted(std::filesystem::path(name).filename().string()), quoted(scripts.string()));
  const std::string script = (scripts / "world_energy.gp").string();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("--plot: cannot start gnuplot");
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", "-e", expression.c_str(), script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("--plot: gnuplot failed on {} (is gnuplot installed?)", script));
}

}  // namespace propimpact::compare
