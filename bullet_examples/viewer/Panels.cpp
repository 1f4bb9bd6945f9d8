#include "Panels.h"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include <propimpact/scenes/Solvers.h>

#include "SceneCatalog.h"

namespace propimpact::viewer {
namespace {

constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;

bool beginPanel(const char* title, const PanelRect& rect) {
  ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
  ImGui::SetNextWindowSize(ImVec2(rect.width, rect.height));
  return ImGui::Begin(title, nullptr, kPanelFlags);
}

/// A combo over \p names; returns true when the choice changed.
bool combo(const char* label, const std::vector<std::string>& names, std::string& current) {
  bool changed = false;
  if (ImGui::BeginCombo(label, current.c_str())) {
    for (const std::string& name : names)
      if (ImGui::Selectable(name.c_str(), name == current) && name != current) {
        current = name;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

void sceneMenu(ScenePair& pair, UiActions& actions) {
  PairConfig& config = pair.config();
  const std::string shown = config.worldFile.empty() ? config.scene : "file: " + config.worldFile;
  if (ImGui::BeginCombo("scene", shown.c_str())) {
    for (const SceneInfo& info : sceneCatalog()) {
      if (ImGui::Selectable(info.name.c_str(), config.worldFile.empty() && info.name == config.scene)) {
        config.scene = info.name;
        config.worldFile.clear();
        actions.reset = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.description.c_str());
    }
    ImGui::EndCombo();
  }
}

void solverControls(ScenePair& pair, UiActions& actions) {
  PairConfig& config = pair.config();
  std::vector<std::string> stock;
  for (const std::string& name : scenes::solverNames())
    if (name != "propagative") stock.push_back(name);
  if (combo("stock (left)", stock, config.stockSolver)) actions.reset = true;
  std::string ordering = toString(config.ordering);
  if (combo("ordering (right)", orderingNames(), ordering)) {
    config.ordering = orderingFromName(ordering);
    actions.orderingChanged = true;
  }
}

}  // namespace

void drawControls(const PanelRect& rect, UiState& state, ScenePair& pair, const FrameStats& stats, UiActions& actions) {
  if (beginPanel("Controls", rect)) {
    ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    sceneMenu(pair, actions);
    solverControls(pair, actions);
    if (ImGui::SliderFloat("restitution", &state.cor, 0, 1, "%.2f")) actions.corChanged = true;
    if (ImGui::SliderFloat("step rate (Hz)", &state.hz, 30, 2000, "%.0f", ImGuiSliderFlags_Logarithmic))
      actions.hzChanged = true;
    ImGui::SliderFloat("slow motion", &state.slowMotion, 0.01f, 1, "%.2fx", ImGuiSliderFlags_Logarithmic);
    ImGui::SliderFloat("shot speed", &state.shootSpeed, 1, 30, "%.0f m/s");
    ImGui::PopItemWidth();
    ImGui::Checkbox("paused (space)", &state.paused);
    ImGui::SameLine();
    if (ImGui::Button("substep (N)")) actions.stepOnce = true;
    ImGui::SameLine();
    if (ImGui::Button("reset (R)")) actions.reset = true;
    ImGui::Checkbox("pause on impact", &state.pauseOnImpact);
    ImGui::SameLine();
    ImGui::Checkbox("contacts", &state.showContacts);
    ImGui::Text("t %.3f s, substep %ld | frame %.1f ms, physics %.2f / %.2f ms", pair.time(), pair.steps(),
                stats.frame, stats.stock, stats.propagative);
  }
  ImGui::End();
}

void drawEnergy(const PanelRect& rect, const ScenePair& pair) {
  if (beginPanel("Total energy (J)", rect)) {
    // One vertical scale for both plots, so that the two drifts compare by eye.
    float lo = 0, hi = 0;
    bool first = true;
    for (const Side side : kSides)
      for (const float v : pair.energy(side).values) {
        lo = first ? v : std::min(lo, v);
        hi = first ? v : std::max(hi, v);
        first = false;
      }
    const float pad = std::max(1e-6f, 0.05f * (hi - lo));
    const float plotHeight = std::max(20.0f, (ImGui::GetContentRegionAvail().y - 2 * ImGui::GetTextLineHeightWithSpacing()) / 2 - 4);
    for (const Side side : kSides) {
      const EnergyTrace& e = pair.energy(side);
      const double drift = e.current - e.initial;
      const double relative = std::abs(e.initial) > 1e-12 ? drift / std::abs(e.initial) : 0.0;
      const std::string label = fmt::format("{}: {:.6g} J, drift {:+.3g} J ({:+.2g} %)",
                                            side == Side::Stock ? "stock" : "propagative", e.current, drift, 100 * relative);
      ImGui::TextUnformatted(label.c_str());
      ImGui::PushID(int(side));
      ImGui::PlotLines("", e.values.data(), int(e.values.size()), 0, nullptr, lo - pad, hi + pad,
                       ImVec2(ImGui::GetContentRegionAvail().x, plotHeight));
      ImGui::PopID();
    }
  }
  ImGui::End();
}

void drawImpact(const PanelRect& rect, const ImpactSnapshot& impact) {
  if (beginPanel("Last impact (propagative)", rect)) {
    if (!impact.valid) {
      ImGui::TextUnformatted("no impact yet");
    } else {
      ImGui::Text("t %.4f s (substep %ld): %zu cluster(s)", impact.time, impact.step, impact.clusters.size());
      for (std::size_t i = 0; i < impact.clusters.size() && i < 8; ++i) {
        const ClusterSummary& c = impact.clusters[i];
        const std::string xi = c.xiComputed ? fmt::format("{:.3g} ({})", c.xi, c.xiOrders) : std::string("-");
        const std::string line = fmt::format(
            "#{}: {} contacts, {} reflections, R {:.2f}; xi {}; certificate: {}; E {:.6g} -> {:.6g} J{}", i + 1,
            c.contacts, c.reflections, c.restitution, xi, c.certificate, c.energyBefore, c.energyAfter,
            c.capHit ? fmt::format("; CAP HIT, fallback {}", c.fallback) : std::string());
        ImGui::TextWrapped("%s", line.c_str());
      }
      if (impact.clusters.size() > 8) ImGui::Text("... %zu more", impact.clusters.size() - 8);
    }
  }
  ImGui::End();
}

}  // namespace propimpact::viewer
