#pragma once
/// \file ViewerApp.h
/// The frame loop: input, lock-step stepping (pause, single substep, slow
/// motion, pause on impact), both worlds drawn through one camera, overlays,
/// panels and capture.

#include <string>
#include <vector>

#include "Camera.h"
#include "Capture.h"
#include "ImpactOverlay.h"
#include "Meshes.h"
#include "Options.h"
#include "Panels.h"
#include "Renderer.h"
#include "ScenePair.h"
#include "ShapeDrawer.h"
#include "Window.h"

namespace propimpact::viewer {

/// Runs the viewer until the window closes or options.frames frames have
/// been shown. Returns the exit code. Throws DisplayError without a display.
int runViewer(const ViewerOptions& options);

/// Everything one viewer session owns.
class ViewerApp {
 public:
  explicit ViewerApp(const ViewerOptions& options);
  /// The frame loop; returns the exit code.
  int run();

 private:
  void handleInput();
  void applyActions();
  void advance();
  bool substepOnce();
  void layout();
  void refitOnNewScene();
  [[nodiscard]] float sliderCor() const;
  void drawWorld(Side side);
  void drawTitles();
  void drawPanels();
  void capture(long frame, bool last);
  void fitCamera();
  void shootAt(float px, float py, const Viewport& viewport);
  [[nodiscard]] std::vector<ProbePoint> probePoints() const;

  ViewerOptions m_options;
  ScenePair m_pair;  // before the window: a bad .bullet file is refused even without a display
  Window m_window;
  Renderer m_renderer;
  MeshLibrary m_meshes;
  ShapeDrawer m_drawer{m_meshes};
  Camera m_camera;
  ImpactOverlay m_overlay;
  Recorder m_recorder;
  UiState m_ui;
  UiActions m_actions;
  FrameStats m_stats;
  Viewport m_views[2];
  float m_uiScale = 1;  // framebuffer pixels per ImGui unit
  float m_panelHeight = 0;
  double m_accumulator = 0;
  int m_meshGeneration = 0;
  std::string m_fittedFor;
  float m_sceneRadius = 1;
};

}  // namespace propimpact::viewer
