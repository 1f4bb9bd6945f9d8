#pragma once
/// \file Panels.h
/// The ImGui panels along the bottom of the window: controls (scene, stock
/// solver, ordering, restitution, step rate, pause, slow motion, reset),
/// energy plots of both worlds with their drift, and the last impact's
/// clusters (ξ, certificate, reflections).

#include <string>

#include "ImpactOverlay.h"
#include "ScenePair.h"

namespace propimpact::viewer {

/// What the user has set in the panels (and the keys).
struct UiState {
  bool paused = false;
  bool pauseOnImpact = false;
  bool showContacts = true;
  float slowMotion = 1;      ///< simulated seconds per shown second.
  float shootSpeed = 8;      ///< m/s of a ball shot by a click.
  float cor = 1;             ///< restitution slider.
  float hz = 240;            ///< step rate slider.
};

/// What the user asked for this frame; applied before the next step.
struct UiActions {
  bool reset = false;         ///< rebuild both worlds (also after a scene or solver change).
  bool stepOnce = false;      ///< one substep while paused.
  bool corChanged = false;    ///< apply UiState::cor.
  bool orderingChanged = false;
  bool hzChanged = false;
};

/// Times of the last frame (ms).
struct FrameStats {
  double frame = 0;
  double stock = 0;        ///< physics of the stock world, last substep.
  double propagative = 0;  ///< physics of the propagative world, last substep.
};

/// A panel's place in the window, in ImGui units.
struct PanelRect {
  float x = 0, y = 0, width = 0, height = 0;
};

/// Scene menu, solvers, restitution, step rate, pause, step, slow motion, reset.
void drawControls(const PanelRect& rect, UiState& state, ScenePair& pair, const FrameStats& stats, UiActions& actions);
/// Total energy of each world over time, and its drift from the start.
void drawEnergy(const PanelRect& rect, const ScenePair& pair);
/// The last impact's clusters.
void drawImpact(const PanelRect& rect, const ImpactSnapshot& impact);

}  // namespace propimpact::viewer
