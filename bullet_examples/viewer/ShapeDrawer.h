#pragma once
/// \file ShapeDrawer.h
/// Turns a Bullet collision shape at a world transform into scaled meshes:
/// spheres, boxes, capsules, cylinders, cones, planes, convex hulls and
/// compounds; any other shape is drawn as its bounding box and named once.

#include <Eigen/Core>

#include <set>
#include <vector>

#include "Meshes.h"

class btCollisionShape;
class btTransform;

namespace propimpact::viewer {

/// One mesh to draw with its model matrix and colour (alpha < 1: translucent).
struct DrawItem {
  const Mesh* mesh = nullptr;
  Eigen::Matrix4f model = Eigen::Matrix4f::Identity();
  Eigen::Vector4f color = Eigen::Vector4f::Ones();
};

/// Collects DrawItems for shapes.
class ShapeDrawer {
 public:
  explicit ShapeDrawer(MeshLibrary& meshes) : m_meshes(meshes) {}
  /// Appends the items drawing \p shape at \p transform. Planes are drawn as
  /// a square of half side \p planeExtent around the point of the plane
  /// nearest to \p focus.
  void collect(const btCollisionShape& shape, const btTransform& transform, const Eigen::Vector4f& color,
               float planeExtent, const Eigen::Vector3f& focus, std::vector<DrawItem>& out);

 private:
  void collectPlane(const btCollisionShape& shape, const Eigen::Matrix4f& frame, const Eigen::Vector4f& color,
                    float planeExtent, const Eigen::Vector3f& focus, std::vector<DrawItem>& out);
  void collectOther(const btCollisionShape& shape, const btTransform& transform, const Eigen::Matrix4f& frame,
                    const Eigen::Vector4f& color, std::vector<DrawItem>& out);

  MeshLibrary& m_meshes;
  std::set<int> m_reported;  // shape types already named as drawn by their bounding box
};

}  // namespace propimpact::viewer
