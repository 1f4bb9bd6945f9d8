#include "AheadGeometry.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
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

bool hasCheapGap(int typeA, int typeB) {
  return (isSphere(typeA) && (isSphere(typeB) || isPlane(typeB))) || (isPlane(typeA) && isSphere(typeB));
}

bool hasAheadPoints(int typeA, int typeB) {
  return hasCheapGap(typeA, typeB) || (isSphere(typeA) && isBox(typeB)) || (isBox(typeA) && isSphere(typeB));
}

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
  return isBox(type) || type == CONVEX_HULL_SHAPE_PROXYTYPE || type == CAPSULE_SHAPE_PROXYTYPE;
}

bool planeFeaturePair(const btPersistentManifold& m) {
  const btCollisionObject* a = m.getBody0();
  const btCollisionObject* b = m.getBody1();
  return (isStaticPlane(a) && hasPlaneFeatures(b->getCollisionShape()->getShapeType())) ||
         (isStaticPlane(b) && hasPlaneFeatures(a->getCollisionShape()->getShapeType()));
}

namespace {

// Local corners of the shape and the margin around them (a box's margin is
// inside its extents, a hull's outside its points, a capsule is its segment
// with the radius as margin), at most \p capacity of them.
int localCorners(const btCollisionShape& shape, btVector3* corners, int capacity, btScalar& margin) {
  const int type = shape.getShapeType();
  if (isBox(type)) {
    const auto& box = static_cast<const btBoxShape&>(shape);
    margin = 0;
    const int count = std::min(8, capacity);
    for (int k = 0; k < count; ++k) box.getVertex(k, corners[k]);
    return count;
  }
  if (type == CAPSULE_SHAPE_PROXYTYPE) {
    const auto& capsule = static_cast<const btCapsuleShape&>(shape);
    margin = capsule.getRadius();
    btVector3 end(0, 0, 0);
    end[capsule.getUpAxis()] = capsule.getHalfHeight();
    const int count = std::min(2, capacity);
    if (count > 0) corners[0] = end;
    if (count > 1) corners[1] = -end;
    return count;
  }
  const auto& hull = static_cast<const btConvexHullShape&>(shape);
  margin = hull.getMargin();
  const int count = std::min(hull.getNumPoints(), capacity);
  for (int k = 0; k < count; ++k) corners[k] = hull.getScaledPoint(k);
  return count;
}

}  // namespace

int planeFeatures(const btCollisionObject& body, const btCollisionObject& plane, PlaneFeature* out, int capacity,
                  btVector3& normal) {
  constexpr int kMostCorners = 64;
  btVector3 corners[kMostCorners];
  btScalar margin = 0;
  const int count = localCorners(*body.getCollisionShape(), corners, kMostCorners, margin);
  const auto* shape = static_cast<const btStaticPlaneShape*>(plane.getCollisionShape());
  const btTransform& planeFrame = plane.getWorldTransform();
  normal = planeFrame.getBasis() * shape->getPlaneNormal();
  const btScalar level = normal.dot(planeFrame * (shape->getPlaneNormal() * shape->getPlaneConstant()));
  PlaneFeature all[kMostCorners];
  for (int k = 0; k < count; ++k) {
    const btVector3 corner = body.getWorldTransform() * corners[k];
    PlaneFeature& f = all[k];
    f.onBody = corner - normal * margin;
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
