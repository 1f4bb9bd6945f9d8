#include "AheadGeometry.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <algorithm>
#include <limits>

namespace propimpact::bullet_detail {
namespace {

bool isSphere(int type) { return type == SPHERE_SHAPE_PROXYTYPE; }
bool isBox(int type) { return type == BOX_SHAPE_PROXYTYPE; }
bool isPlane(int type) { return type == STATIC_PLANE_PROXYTYPE; }

btScalar radiusOf(const btCollisionObject& sphere) {
  return static_cast<const btSphereShape*>(sphere.getCollisionShape())->getRadius();
}

/// A point with its world positions set (Bullet's constructor takes local ones).
btManifoldPoint worldPoint(const btVector3& onA, const btVector3& onB, const btVector3& normalOnB, btScalar distance) {
  btManifoldPoint point(onA, onB, normalOnB, distance);
  point.m_positionWorldOnA = onA;
  point.m_positionWorldOnB = onB;
  return point;
}

/// Nothing when the centre is inside the box (Bullet's own contact handles that).
std::optional<btManifoldPoint> sphereBox(const btCollisionObject& sphere, const btCollisionObject& box, bool sphereIsA) {
  const btScalar radius = radiusOf(sphere);
  const btVector3 half = static_cast<const btBoxShape*>(box.getCollisionShape())->getHalfExtentsWithMargin();
  const btTransform& frame = box.getWorldTransform();
  const btVector3 centre = frame.invXform(sphere.getWorldTransform().getOrigin());
  btVector3 closest = centre;
  closest.setMax(-half);
  closest.setMin(half);
  const btVector3 towardsSphere = frame.getBasis() * (centre - closest);
  const btScalar gap = towardsSphere.length();
  if (!(gap > 0)) return std::nullopt;
  const btVector3 onBox = frame * closest;
  const btVector3 n = towardsSphere / gap;  // from the box to the sphere
  const btVector3 onSphere = sphere.getWorldTransform().getOrigin() - n * radius;
  if (sphereIsA) return worldPoint(onSphere, onBox, n, gap - radius);
  return worldPoint(onBox, onSphere, -n, gap - radius);
}

/// The plane's world normal and the signed height of the sphere's centre over it.
void planeFrame(const btCollisionObject& sphere, const btCollisionObject& plane, btVector3& normal, btScalar& height) {
  const auto* shape = static_cast<const btStaticPlaneShape*>(plane.getCollisionShape());
  const btTransform& frame = plane.getWorldTransform();
  normal = frame.getBasis() * shape->getPlaneNormal();
  const btVector3 onPlane = frame * (shape->getPlaneNormal() * shape->getPlaneConstant());
  height = normal.dot(sphere.getWorldTransform().getOrigin() - onPlane);
}

std::optional<btManifoldPoint> spherePlane(const btCollisionObject& sphere, const btCollisionObject& plane, bool sphereIsA) {
  btVector3 n;
  btScalar height = 0;
  planeFrame(sphere, plane, n, height);
  if (!(height == height)) return std::nullopt;
  const btVector3 centre = sphere.getWorldTransform().getOrigin();
  const btVector3 onSphere = centre - n * radiusOf(sphere);
  const btVector3 onPlane = centre - n * height;
  const btScalar gap = height - radiusOf(sphere);
  if (sphereIsA) return worldPoint(onSphere, onPlane, n, gap);
  return worldPoint(onPlane, onSphere, -n, gap);
}

std::optional<btManifoldPoint> sphereSphere(const btCollisionObject& a, const btCollisionObject& b) {
  const btVector3 between = a.getWorldTransform().getOrigin() - b.getWorldTransform().getOrigin();
  const btScalar length = between.length();
  if (!(length > 0)) return std::nullopt;
  const btVector3 n = between / length;  // from B to A
  return worldPoint(a.getWorldTransform().getOrigin() - n * radiusOf(a), b.getWorldTransform().getOrigin() + n * radiusOf(b),
                    n, length - radiusOf(a) - radiusOf(b));
}

}  // namespace

std::optional<btManifoldPoint> closestPoints(const btCollisionObject& a, const btCollisionObject& b) {
  const int typeA = a.getCollisionShape()->getShapeType();
  const int typeB = b.getCollisionShape()->getShapeType();
  if (isSphere(typeA) && isSphere(typeB)) return sphereSphere(a, b);
  if (isSphere(typeA) && isBox(typeB)) return sphereBox(a, b, true);
  if (isBox(typeA) && isSphere(typeB)) return sphereBox(b, a, false);
  if (isSphere(typeA) && isPlane(typeB)) return spherePlane(a, b, true);
  if (isPlane(typeA) && isSphere(typeB)) return spherePlane(b, a, false);
  return std::nullopt;
}

btScalar aheadGap(const btCollisionObject& a, const btCollisionObject& b) {
  const int typeA = a.getCollisionShape()->getShapeType();
  const int typeB = b.getCollisionShape()->getShapeType();
  if (isSphere(typeA) && isSphere(typeB)) {
    const btScalar length = (a.getWorldTransform().getOrigin() - b.getWorldTransform().getOrigin()).length();
    if (!(length > 0)) return std::numeric_limits<btScalar>::quiet_NaN();
    return length - radiusOf(a) - radiusOf(b);
  }
  if (isPlane(typeA) || isPlane(typeB)) {
    const btCollisionObject& sphere = isSphere(typeA) ? a : b;
    btVector3 normal;
    btScalar height = 0;
    planeFrame(sphere, isSphere(typeA) ? b : a, normal, height);
    return height - radiusOf(sphere);
  }
  return std::numeric_limits<btScalar>::quiet_NaN();
}

bool hasPlaneFeatures(int type) {
  return isBox(type) || type == CONVEX_HULL_SHAPE_PROXYTYPE || type == CAPSULE_SHAPE_PROXYTYPE ||
         type == COMPOUND_SHAPE_PROXYTYPE;
}

namespace {

constexpr int kMostCorners = 64;

/// A corner in the body's frame and the margin around it.
struct LocalCorner {
  btVector3 point;
  btScalar margin = 0;
};

// A box's margin is inside its extents, a hull's outside its points, a
// capsule is its segment with the radius as margin and a sphere its centre
// with the radius; a compound's children (one level) in their frames.
void appendCorners(const btCollisionShape& shape, const btTransform& frame, LocalCorner* out, int& count) {
  const int type = shape.getShapeType();
  const auto add = [&](const btVector3& local, btScalar margin) {
    if (count < kMostCorners) out[count++] = LocalCorner{frame * local, margin};
  };
  if (isBox(type)) {
    btVector3 corner;
    for (int k = 0; k < 8; ++k) {
      static_cast<const btBoxShape&>(shape).getVertex(k, corner);
      add(corner, 0);
    }
  } else if (type == CAPSULE_SHAPE_PROXYTYPE) {
    const auto& capsule = static_cast<const btCapsuleShape&>(shape);
    btVector3 end(0, 0, 0);
    end[capsule.getUpAxis()] = capsule.getHalfHeight();
    add(end, capsule.getRadius());
    add(-end, capsule.getRadius());
  } else if (type == CONVEX_HULL_SHAPE_PROXYTYPE) {
    const auto& hull = static_cast<const btConvexHullShape&>(shape);
    for (int k = 0; k < hull.getNumPoints(); ++k) add(hull.getScaledPoint(k), hull.getMargin());
  } else if (isSphere(type)) {
    add(btVector3(0, 0, 0), static_cast<const btSphereShape&>(shape).getRadius());
  } else if (type == COMPOUND_SHAPE_PROXYTYPE && frame == btTransform::getIdentity()) {
    const auto& compound = static_cast<const btCompoundShape&>(shape);
    for (int k = 0; k < compound.getNumChildShapes(); ++k)
      appendCorners(*compound.getChildShape(k), compound.getChildTransform(k), out, count);
  }
}

}  // namespace

int planeFeatures(const btCollisionObject& body, const btCollisionObject& plane, PlaneFeature* out, int capacity,
                  btVector3& normal) {
  return planeFeaturesAt(body, body.getWorldTransform(), plane, out, capacity, normal);
}

int planeFeaturesAt(const btCollisionObject& body, const btTransform& pose, const btCollisionObject& plane,
                    PlaneFeature* out, int capacity, btVector3& normal) {
  LocalCorner corners[kMostCorners];
  int count = 0;
  appendCorners(*body.getCollisionShape(), btTransform::getIdentity(), corners, count);
  const auto* shape = static_cast<const btStaticPlaneShape*>(plane.getCollisionShape());
  const btTransform& planeFrame = plane.getWorldTransform();
  normal = planeFrame.getBasis() * shape->getPlaneNormal();
  const btScalar level = normal.dot(planeFrame * (shape->getPlaneNormal() * shape->getPlaneConstant()));
  PlaneFeature all[kMostCorners];
  for (int k = 0; k < count; ++k) {
    PlaneFeature& f = all[k];
    f.onBody = pose * corners[k].point - normal * corners[k].margin;
    f.distance = normal.dot(f.onBody) - level;
    f.onPlane = f.onBody - normal * f.distance;
  }
  const int kept = std::min(count, capacity);
  std::partial_sort(all, all + kept, all + count,
                    [](const PlaneFeature& x, const PlaneFeature& y) { return x.distance < y.distance; });
  std::copy(all, all + kept, out);
  return kept;
}

btScalar aheadReach(const btCollisionObject& object) {
  return isSphere(object.getCollisionShape()->getShapeType()) ? radiusOf(object) : btScalar(0);
}

}  // namespace propimpact::bullet_detail
