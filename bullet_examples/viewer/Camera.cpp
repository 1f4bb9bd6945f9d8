#include "Camera.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>

namespace propimpact::viewer {
namespace {

using Eigen::Matrix4f;
using Eigen::Vector3f;

constexpr float kNearFraction = 0.01f;  // near plane as a fraction of the distance
constexpr float kFarFactor = 50.0f;     // far plane as a multiple of the distance
constexpr float kPitchLimit = 1.5f;     // rad: short of straight up or down, where yaw degenerates
constexpr float kOrbitRate = 0.01f;     // rad per pixel

}  // namespace

void Camera::fit(const Vector3f& lo, const Vector3f& hi, float aspect) {
  m_target = (lo + hi) / 2;
  const float radius = std::max(0.5f * (hi - lo).norm(), 0.5f);
  const float fovX = 2 * std::atan(std::tan(m_fovY / 2) * aspect);
  m_distance = 1.05f * radius / std::sin(std::min(m_fovY, fovX) / 2);
}

void Camera::orbit(float dx, float dy) {
  m_yaw += dx * kOrbitRate;
  m_pitch = std::clamp(m_pitch + dy * kOrbitRate, -kPitchLimit, kPitchLimit);
}

void Camera::pan(float dx, float dy, const Viewport& viewport) {
  const Matrix4f v = view();
  const Vector3f right = v.block<1, 3>(0, 0).transpose(), up = v.block<1, 3>(1, 0).transpose();
  const float metresPerPixel = 2 * m_distance * std::tan(m_fovY / 2) / float(viewport.height);
  m_target += (-dx * right + dy * up) * metresPerPixel;
}

void Camera::zoom(float factor) { m_distance = std::max(m_distance * factor, 0.05f); }

Vector3f Camera::eye() const {
  const Vector3f offset(std::sin(m_yaw) * std::cos(m_pitch), std::sin(m_pitch), std::cos(m_yaw) * std::cos(m_pitch));
  return m_target + m_distance * offset;
}

Matrix4f Camera::view() const {
  const Vector3f e = eye();
  const Vector3f forward = (m_target - e).normalized();
  const Vector3f right = forward.cross(Vector3f::UnitY()).normalized();
  const Vector3f up = right.cross(forward);
  Matrix4f out = Matrix4f::Identity();
  out.block<1, 3>(0, 0) = right.transpose();
  out.block<1, 3>(1, 0) = up.transpose();
  out.block<1, 3>(2, 0) = -forward.transpose();
  out(0, 3) = -right.dot(e);
  out(1, 3) = -up.dot(e);
  out(2, 3) = forward.dot(e);
  return out;
}

Matrix4f Camera::projection(float aspect) const {
  const float n = kNearFraction * m_distance, f = kFarFactor * m_distance;
  const float t = 1 / std::tan(m_fovY / 2);
  Matrix4f out = Matrix4f::Zero();
  out(0, 0) = t / aspect;
  out(1, 1) = t;
  out(2, 2) = (f + n) / (n - f);
  out(2, 3) = 2 * f * n / (n - f);
  out(3, 2) = -1;
  return out;
}

bool Camera::project(const Vector3f& point, const Viewport& viewport, Eigen::Vector2f& pixel) const {
  const Eigen::Vector4f clip = projection(viewport.aspect()) * view() * point.homogeneous();
  if (clip.w() <= 0) return false;
  const float x = clip.x() / clip.w(), y = clip.y() / clip.w();
  pixel = {float(viewport.x) + (x + 1) / 2 * float(viewport.width), float(viewport.y) + (1 - y) / 2 * float(viewport.height)};
  return true;
}

Vector3f Camera::rayDirection(float px, float py, const Viewport& viewport) const {
  const float x = 2 * (px - float(viewport.x)) / float(viewport.width) - 1;
  const float y = 1 - 2 * (py - float(viewport.y)) / float(viewport.height);
  const float t = std::tan(m_fovY / 2);
  const Matrix4f v = view();
  const Vector3f right = v.block<1, 3>(0, 0).transpose(), up = v.block<1, 3>(1, 0).transpose();
  const Vector3f forward = -v.block<1, 3>(2, 0).transpose();
  return (forward + x * t * viewport.aspect() * right + y * t * up).normalized();
}

}  // namespace propimpact::viewer
