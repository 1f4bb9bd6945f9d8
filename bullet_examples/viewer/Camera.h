#pragma once
/// \file Camera.h
/// The one camera both worlds are seen through: an orbit about a target,
/// and the projection between world points and a viewport's pixels.

#include <Eigen/Core>

namespace propimpact::viewer {

/// A rectangle of the window in pixels, origin at the top left (as ImGui and
/// PNG rows count); the renderer flips it for OpenGL.
struct Viewport {
  int x = 0, y = 0, width = 1, height = 1;
  [[nodiscard]] float aspect() const { return float(width) / float(height); }
  [[nodiscard]] bool contains(float px, float py) const {
    return px >= float(x) && px < float(x + width) && py >= float(y) && py < float(y + height);
  }
};

/// Orbit camera: looks at target from distance, at yaw about y and pitch above the horizon.
class Camera {
 public:
  /// Frames the box [lo, hi] in a viewport of aspect \p aspect.
  void fit(const Eigen::Vector3f& lo, const Eigen::Vector3f& hi, float aspect);
  /// Turns by pixel deltas (right-drag).
  void orbit(float dx, float dy);
  /// Moves the target by pixel deltas in the view plane (middle-drag).
  void pan(float dx, float dy, const Viewport& viewport);
  /// Multiplies the distance (wheel).
  void zoom(float factor);

  [[nodiscard]] Eigen::Vector3f eye() const;
  [[nodiscard]] Eigen::Matrix4f view() const;
  [[nodiscard]] Eigen::Matrix4f projection(float aspect) const;
  /// Pixel of \p point in \p viewport (top-left origin); false when behind the camera.
  bool project(const Eigen::Vector3f& point, const Viewport& viewport, Eigen::Vector2f& pixel) const;
  /// The ray through pixel (px, py) of \p viewport: from the eye, unit direction.
  [[nodiscard]] Eigen::Vector3f rayDirection(float px, float py, const Viewport& viewport) const;
  /// Distance from eye to target (scales arrows, markers and the shot ball).
  [[nodiscard]] float distance() const { return m_distance; }

 private:
  Eigen::Vector3f m_target = Eigen::Vector3f::Zero();
  float m_distance = 10;
  float m_yaw = 0.35f;    // rad about +y, 0 looks along −z
  float m_pitch = 0.25f;  // rad above the horizon
  float m_fovY = 0.7f;    // rad
};

}  // namespace propimpact::viewer
