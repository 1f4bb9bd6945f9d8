#include "ShapeDrawer.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <Eigen/Geometry>
#include <fmt/format.h>

namespace propimpact::viewer {
namespace {

using Eigen::Matrix4f;
using Eigen::Vector3f;

Matrix4f toMatrix(const btTransform& transform) {
  btScalar m[16];
  transform.getOpenGLMatrix(m);
  Matrix4f out;
  for (int i = 0; i < 16; ++i) out.data()[i] = float(m[i]);  // both column-major
  return out;
}

Matrix4f scaling(const Vector3f& s) {
  Matrix4f out = Matrix4f::Identity();
  out.diagonal().head<3>() = s;
  return out;
}

/// Rotates the unit meshes' y axis onto Bullet's up axis \p axis (0 x, 1 y, 2 z).
Matrix4f upAxis(int axis) {
  Matrix4f out = Matrix4f::Identity();
  if (axis == 0) out.topLeftCorner<3, 3>() = Eigen::AngleAxisf(-1.5707963f, Vector3f::UnitZ()).toRotationMatrix();
  if (axis == 2) out.topLeftCorner<3, 3>() = Eigen::AngleAxisf(1.5707963f, Vector3f::UnitX()).toRotationMatrix();
  return out;
}

Matrix4f translation(const Vector3f& t) {
  Matrix4f out = Matrix4f::Identity();
  out.topRightCorner<3, 1>() = t;
  return out;
}

}  // namespace

void ShapeDrawer::collect(const btCollisionShape& shape, const btTransform& transform, const Eigen::Vector4f& color,
                          float planeExtent, const Vector3f& focus, std::vector<DrawItem>& out) {
  const Matrix4f frame = toMatrix(transform);
  switch (shape.getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE: {
      const float r = float(static_cast<const btSphereShape&>(shape).getRadius());
      out.push_back({&m_meshes.sphere(), frame * scaling(Vector3f::Constant(r)), color});
      return;
    }
    case BOX_SHAPE_PROXYTYPE: {
      const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
      out.push_back({&m_meshes.box(), frame * scaling(Vector3f(float(h.x()), float(h.y()), float(h.z()))), color});
      return;
    }
    case CAPSULE_SHAPE_PROXYTYPE: {
      const auto& capsule = static_cast<const btCapsuleShape&>(shape);
      const float r = float(capsule.getRadius()), h = float(capsule.getHalfHeight());
      const Matrix4f axis = frame * upAxis(capsule.getUpAxis());
      out.push_back({&m_meshes.cylinder(), axis * scaling(Vector3f(r, h, r)), color});
      for (const float end : {-h, h})
        out.push_back({&m_meshes.sphere(), axis * translation(Vector3f(0, end, 0)) * scaling(Vector3f::Constant(r)), color});
      return;
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
      const auto& cylinder = static_cast<const btCylinderShape&>(shape);
      const int up = cylinder.getUpAxis();
      const btVector3 h = cylinder.getHalfExtentsWithMargin();
      const float r = float(h[(up + 1) % 3]), half = float(h[up]);
      out.push_back({&m_meshes.cylinder(), frame * upAxis(up) * scaling(Vector3f(r, half, r)), color});
      return;
    }
    case CONE_SHAPE_PROXYTYPE: {
      const auto& cone = static_cast<const btConeShape&>(shape);
      const float r = float(cone.getRadius()), half = float(cone.getHeight()) / 2;
      out.push_back({&m_meshes.cone(), frame * upAxis(cone.getConeUpIndex()) * scaling(Vector3f(r, half, r)), color});
      return;
    }
    case STATIC_PLANE_PROXYTYPE:
      collectPlane(shape, frame, color, planeExtent, focus, out);
      return;
    case COMPOUND_SHAPE_PROXYTYPE: {
      const auto& compound = static_cast<const btCompoundShape&>(shape);
      for (int i = 0; i < compound.getNumChildShapes(); ++i)
        collect(*compound.getChildShape(i), transform * compound.getChildTransform(i), color, planeExtent, focus, out);
      return;
    }
    default:
      collectOther(shape, transform, frame, color, out);
  }
}

void ShapeDrawer::collectPlane(const btCollisionShape& shape, const Matrix4f& frame, const Eigen::Vector4f& color,
                               float planeExtent, const Vector3f& focus, std::vector<DrawItem>& out) {
  const auto& plane = static_cast<const btStaticPlaneShape&>(shape);
  const btVector3& n = plane.getPlaneNormal();
  const Vector3f normal(float(n.x()), float(n.y()), float(n.z()));
  // The plane in world coordinates: the local normal and constant carried by the body's frame.
  const Vector3f worldNormal = (frame.topLeftCorner<3, 3>() * normal).normalized();
  const Vector3f worldPoint = (frame * (normal * float(plane.getPlaneConstant())).homogeneous()).head<3>();
  const Vector3f centre = focus - worldNormal * worldNormal.dot(focus - worldPoint);
  Matrix4f model = translation(centre);
  model.topLeftCorner<3, 3>() = Eigen::Quaternionf::FromTwoVectors(Vector3f::UnitY(), worldNormal).toRotationMatrix();
  out.push_back({&m_meshes.square(), model * scaling(Vector3f(planeExtent, 1, planeExtent)), color});
}

void ShapeDrawer::collectOther(const btCollisionShape& shape, const btTransform& transform, const Matrix4f& frame,
                               const Eigen::Vector4f& color, std::vector<DrawItem>& out) {
  if (shape.isConvex()) {
    out.push_back({&m_meshes.hull(static_cast<const btConvexShape&>(shape)), frame, color});
    return;
  }
  if (m_reported.insert(shape.getShapeType()).second)
    fmt::print(stderr, "propimpact-viewer: {} shapes are drawn as their bounding box\n", shape.getName());
  btVector3 lo, hi;
  shape.getAabb(transform, lo, hi);
  const btVector3 c = (lo + hi) / 2, h = (hi - lo) / 2;
  out.push_back({&m_meshes.box(),
                 translation(Vector3f(float(c.x()), float(c.y()), float(c.z()))) *
                     scaling(Vector3f(float(h.x()), float(h.y()), float(h.z()))),
                 color});
}

}  // namespace propimpact::viewer
