#pragma once
/// \file Renderer.h
/// Draws a frame into an offscreen framebuffer (so a hidden window under
/// xvfb-run still has well-defined pixels to capture), then copies it to the
/// window: lit shapes, then lines on top, per viewport.

#include <Eigen/Core>

#include <vector>

#include "Camera.h"
#include "Shaders.h"
#include "ShapeDrawer.h"

namespace propimpact::viewer {

/// One end of a line segment.
struct LineVertex {
  float position[3];
  float color[4];
};

/// The 3-D views' background (linear RGB, 0..1); tests compare pixels with it.
constexpr float kBackground[3] = {0.13f, 0.15f, 0.19f};

/// Colour of the dynamic body with index \p dynamicIndex (creation order among
/// dynamic bodies): the same body has the same colour in both worlds, and no
/// colour is grey, so a test can tell a body from a wall or the background.
[[nodiscard]] Eigen::Vector4f bodyColor(int dynamicIndex);
/// Number of distinct body colours.
constexpr int kPaletteSize = 8;

/// Owns the GL programs and the offscreen framebuffer. Needs a current GL context.
class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Binds the offscreen framebuffer (resized to width × height) and clears it.
  void begin(int width, int height);
  /// Clears \p viewport to kBackground.
  void clearViewport(const Viewport& viewport);
  /// Draws the items: translucent (static) ones first without depth writes,
  /// so that they never hide or tint a body (the walls of a closed box show
  /// what is inside), then opaque ones.
  void drawItems(const std::vector<DrawItem>& items, const Camera& camera, const Viewport& viewport,
                 const Eigen::Vector3f& lightDirection);
  /// Draws line segments (pairs of vertices); \p onTop ignores depth.
  void drawLines(const std::vector<LineVertex>& lines, const Camera& camera, const Viewport& viewport, bool onTop);
  /// Restores the full-window viewport for the UI.
  void endScene();
  /// The offscreen image as RGB rows, top row first.
  [[nodiscard]] std::vector<unsigned char> readRgb() const;
  /// Copies the offscreen image to the window's back buffer.
  void present();

  [[nodiscard]] int width() const { return m_width; }
  [[nodiscard]] int height() const { return m_height; }

 private:
  void setViewport(const Viewport& viewport) const;
  void resize(int width, int height);

  Program m_lit;
  Program m_lines;
  unsigned m_framebuffer = 0, m_color = 0, m_depth = 0;
  unsigned m_lineArray = 0, m_lineBuffer = 0;
  int m_width = 0, m_height = 0;
};

}  // namespace propimpact::viewer
