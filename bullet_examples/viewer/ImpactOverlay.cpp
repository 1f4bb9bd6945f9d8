#include "ImpactOverlay.h"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <Eigen/Geometry>

namespace propimpact::viewer {
namespace {

using Eigen::Vector3f;

/// Impulses below this (N·s) are resting contact noise, not drawn for stock Bullet.
constexpr float kImpulseFloor = 1e-6f;

bool isDynamic(const btCollisionObject* object) { return object && !object->isStaticOrKinematicObject(); }

Vector3f toVector(const double (&v)[3]) { return Vector3f(float(v[0]), float(v[1]), float(v[2])); }
Vector3f toVector(const btVector3& v) { return Vector3f(float(v.x()), float(v.y()), float(v.z())); }

/// Ranks 1, 2, ... by first reflection (ContactReport::firstReflection), over the contacts of one cluster.
void rankByReflection(const std::vector<ContactReport>& contacts, std::vector<ContactMark>& marks, std::size_t first) {
  std::vector<std::pair<int, std::size_t>> reflected;
  for (std::size_t i = 0; i < contacts.size(); ++i)
    if (contacts[i].firstReflection >= 0) reflected.emplace_back(contacts[i].firstReflection, first + i);
  std::sort(reflected.begin(), reflected.end());
  for (std::size_t rank = 0; rank < reflected.size(); ++rank) marks[reflected[rank].second].order = int(rank + 1);
}

ClusterSummary summarize(const ClusterReport& c) {
  ClusterSummary s;
  s.contacts = c.contacts.size();
  s.reflections = c.reflections;
  s.energyBefore = c.energyBefore;
  s.energyAfter = c.energyAfter;
  s.restitution = c.restitution;
  s.xiComputed = c.xiComputed;
  s.xi = c.xi;
  s.xiOrders = toString(c.xiOrders);
  s.certificate = toString(c.certificate);
  s.fallback = toString(c.fallback);
  s.capHit = c.capHit;
  return s;
}

void stockMarks(scenes::World& world, std::vector<ContactMark>& out) {
  btDispatcher* dispatcher = world.dynamics().getDispatcher();
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    for (int p = 0; p < manifold->getNumContacts(); ++p) {
      const btManifoldPoint& point = manifold->getContactPoint(p);
      if (point.getAppliedImpulse() <= kImpulseFloor) continue;
      ContactMark mark;
      mark.point = toVector(point.getPositionWorldOnB());
      mark.normal = toVector(point.m_normalWorldOnB);
      mark.towardsDynamic = isDynamic(manifold->getBody0()) ? 1.0f : -1.0f;
      mark.impulse = float(point.getAppliedImpulse());
      out.push_back(mark);
    }
  }
}

void addLine(std::vector<LineVertex>& out, const Vector3f& a, const Vector3f& b, const float (&color)[4]) {
  out.push_back({{a.x(), a.y(), a.z()}, {color[0], color[1], color[2], color[3]}});
  out.push_back({{b.x(), b.y(), b.z()}, {color[0], color[1], color[2], color[3]}});
}

}  // namespace

void ImpactOverlay::capture(ScenePair& pair) {
  ImpactSnapshot s;
  s.valid = true;
  s.time = pair.time();
  s.step = pair.steps();
  std::vector<ContactMark>& right = s.marks[std::size_t(Side::Propagative)];
  for (const ClusterReport& cluster : pair.lastReport().clusters) {
    const std::size_t first = right.size();
    for (const ContactReport& c : cluster.contacts) {
      ContactMark mark;
      mark.point = toVector(c.point);
      mark.normal = toVector(c.normal);
      mark.towardsDynamic = isDynamic(c.bodyA) ? 1.0f : -1.0f;
      mark.impulse = float(c.impulse);
      mark.seed = c.seed;
      right.push_back(mark);
    }
    rankByReflection(cluster.contacts, right, first);
    s.clusters.push_back(summarize(cluster));
  }
  stockMarks(pair.world(Side::Stock), s.marks[std::size_t(Side::Stock)]);
  for (const auto& marks : s.marks)
    for (const ContactMark& mark : marks) s.largestImpulse = std::max(s.largestImpulse, mark.impulse);
  m_snapshot = std::move(s);
}

void ImpactOverlay::lines(Side side, float arrowLength, std::vector<LineVertex>& out) const {
  if (!m_snapshot.valid) return;
  constexpr float kNormal[4] = {0.3f, 0.85f, 1.0f, 1.0f};
  constexpr float kArrow[4] = {1.0f, 0.78f, 0.15f, 1.0f};
  constexpr float kPoint[4] = {1.0f, 0.3f, 0.3f, 1.0f};
  constexpr float kSeed[4] = {1.0f, 1.0f, 1.0f, 1.0f};  // an impact by itself, where the propagation started
  const float tick = 0.08f * arrowLength;
  for (const ContactMark& mark : m_snapshot.marks[std::size_t(side)]) {
    for (int axis = 0; axis < 3; ++axis)
      addLine(out, mark.point - tick * Vector3f::Unit(axis), mark.point + tick * Vector3f::Unit(axis),
              mark.seed ? kSeed : kPoint);
    addLine(out, mark.point, mark.point + 0.3f * arrowLength * mark.normal, kNormal);
    if (m_snapshot.largestImpulse <= 0 || mark.impulse <= 0) continue;
    // The impulse on the contact's dynamic body (A when it is), its length proportional to the magnitude.
    const Vector3f direction = mark.towardsDynamic * mark.normal;
    const Vector3f tip = mark.point + arrowLength * (mark.impulse / m_snapshot.largestImpulse) * direction;
    addLine(out, mark.point, tip, kArrow);
    const Vector3f side1 = direction.unitOrthogonal(), side2 = direction.cross(side1);
    const float head = 0.25f * (tip - mark.point).norm();
    for (const Vector3f& across : {Vector3f(side1), Vector3f(-side1), Vector3f(side2), Vector3f(-side2)})
      addLine(out, tip, tip - head * direction + 0.5f * head * across, kArrow);
  }
}

void ImpactOverlay::labels(Side side, const Camera& camera, const Viewport& viewport, float uiScale,
                           ImDrawList& draw) const {
  if (!m_snapshot.valid) return;
  for (const ContactMark& mark : m_snapshot.marks[std::size_t(side)]) {
    if (mark.order <= 0) continue;
    Eigen::Vector2f pixel;
    if (!camera.project(mark.point, viewport, pixel) || !viewport.contains(pixel.x(), pixel.y())) continue;
    const std::string text = std::to_string(mark.order);
    const ImVec2 at(pixel.x() / uiScale + 4, pixel.y() / uiScale - 16);
    draw.AddText(ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 255), text.c_str());
    draw.AddText(at, IM_COL32(255, 235, 120, 255), text.c_str());
  }
}

}  // namespace propimpact::viewer
