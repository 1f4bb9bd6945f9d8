#pragma once
// Closest points of the shape pairs for which the gather stage makes a point
// of its own when Bullet's manifold is empty (Island::addAheadPoint): two
// spheres, a sphere and a box, a sphere and a static plane. Bullet keeps no
// point for such a pair beyond its contact breaking threshold, which for a
// small sphere is a fraction of a millimetre (the sphere's share of
// gContactBreakingThreshold), while a 60 Hz step moves a body centimetres.

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletCollision/NarrowPhaseCollision/btManifoldPoint.h>

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <cstddef>
#include <optional>

namespace propimpact::bullet_detail {

/// Whether the pair's gap is cheap to bound (aheadGap()): two spheres, or a
/// sphere and a static plane. Such pairs get their point only when the step
/// may close them (Island::mayClose); a sphere and a box always get theirs.
/// Inline, as hasAheadPoints: asked of every empty manifold of every pass.
[[nodiscard]] inline bool hasCheapGap(int typeA, int typeB) {
  return (typeA == SPHERE_SHAPE_PROXYTYPE && (typeB == SPHERE_SHAPE_PROXYTYPE || typeB == STATIC_PLANE_PROXYTYPE)) ||
         (typeA == STATIC_PLANE_PROXYTYPE && typeB == SPHERE_SHAPE_PROXYTYPE);
}

/// Whether closestPoints() has points for shapes of these types.
[[nodiscard]] inline bool hasAheadPoints(int typeA, int typeB) {
  return hasCheapGap(typeA, typeB) || (typeA == SPHERE_SHAPE_PROXYTYPE && typeB == BOX_SHAPE_PROXYTYPE) ||
         (typeA == BOX_SHAPE_PROXYTYPE && typeB == SPHERE_SHAPE_PROXYTYPE);
}

/// The closest points as a manifold point from B to A (positions in world
/// coordinates), if the pair is one of hasAheadPoints()'s; nothing otherwise,
/// or when the closest points are not unique (coincident sphere centres, a
/// sphere centre inside a box).
[[nodiscard]] std::optional<btManifoldPoint> closestPoints(const btCollisionObject& a, const btCollisionObject& b);

/// The gap closestPoints() gives a hasCheapGap() pair, without making the
/// point; NaN when it has none.
[[nodiscard]] btScalar aheadGap(const btCollisionObject& a, const btCollisionObject& b);

/// A static plane's manifold holds one point (the deepest corner, a few more
/// from Bullet's perturbation): at most this many corners of ours beside it.
constexpr std::size_t kPlaneFeaturesPerManifold = 8;

/// Whether \p object is a static plane.
[[nodiscard]] inline bool isStaticPlane(const btCollisionObject* object) {
  return object->getCollisionShape()->getShapeType() == STATIC_PLANE_PROXYTYPE;
}

/// Bodies whose corners a static plane may meet one at a time: boxes, convex
/// hulls (a vertex each), capsules (an end each) and compounds of those and
/// spheres (each child's).
[[nodiscard]] bool hasPlaneFeatures(int shapeType);

/// A static plane and a box, hull, capsule or compound, in either order.
/// Inline: the gather asks it of every manifold twice, and most have no plane.
[[nodiscard]] inline bool planeFeaturePair(const btPersistentManifold& manifold) {
  const btCollisionObject* a = manifold.getBody0();
  const btCollisionObject* b = manifold.getBody1();
  return (isStaticPlane(a) && hasPlaneFeatures(b->getCollisionShape()->getShapeType())) ||
         (isStaticPlane(b) && hasPlaneFeatures(a->getCollisionShape()->getShapeType()));
}

/// A corner of a body (or a capsule's end) against a static plane: its
/// lowest surface point and its signed distance above the plane.
struct PlaneFeature {
  btVector3 onBody;
  btVector3 onPlane;
  btScalar distance = 0;
};

/// The features of \p body (hasPlaneFeatures) against \p plane, into \p out
/// (at most \p capacity: the lowest ones first); \p normal receives the
/// plane's world normal. Returns how many.
int planeFeatures(const btCollisionObject& body, const btCollisionObject& plane, PlaneFeature* out, int capacity,
                  btVector3& normal);

/// planeFeatures() with \p body at \p pose instead of its world transform.
int planeFeaturesAt(const btCollisionObject& body, const btTransform& pose, const btCollisionObject& plane,
                    PlaneFeature* out, int capacity, btVector3& normal);

/// How far a point of \p object's surface can be from its centre of mass
/// along any normal a closestPoints() pair can have: a sphere's radius; 0 for
/// a plane, whose points do not turn with its body (see Island::mayClose).
[[nodiscard]] btScalar aheadReach(const btCollisionObject& object);

}  // namespace propimpact::bullet_detail
