#include "Meshes.h"

#include "Gl.h"

#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <Eigen/Geometry>

#include <cmath>
#include <cstddef>

namespace propimpact::viewer {
namespace {

using Eigen::Vector3f;

constexpr float kPi = 3.14159265358979f;
/// Facets around a sphere, cylinder or cone: round enough at the sizes shown.
constexpr int kSegments = 24;
constexpr int kRings = 14;

void addVertex(std::vector<Vertex>& out, const Vector3f& p, const Vector3f& n) {
  out.push_back(Vertex{{p.x(), p.y(), p.z()}, {n.x(), n.y(), n.z()}});
}

/// A flat triangle (normal from its winding, counter-clockwise seen from outside).
void addFlat(std::vector<Vertex>& out, const Vector3f& a, const Vector3f& b, const Vector3f& c) {
  const Vector3f n = (b - a).cross(c - a).normalized();
  addVertex(out, a, n);
  addVertex(out, b, n);
  addVertex(out, c, n);
}

std::vector<Vertex> sphereTriangles() {
  std::vector<Vertex> out;
  const auto at = [](int ring, int segment) {
    const float theta = kPi * float(ring) / kRings, phi = 2 * kPi * float(segment) / kSegments;
    return Vector3f(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
  };
  for (int r = 0; r < kRings; ++r)
    for (int s = 0; s < kSegments; ++s) {
      const Vector3f a = at(r, s), b = at(r + 1, s), c = at(r + 1, s + 1), d = at(r, s + 1);
      for (const Vector3f& p : {a, c, b, a, d, c}) addVertex(out, p, p);  // the normal of a unit sphere is its point
    }
  return out;
}

std::vector<Vertex> boxTriangles() {
  std::vector<Vertex> out;
  for (int axis = 0; axis < 3; ++axis)
    for (const float side : {-1.0f, 1.0f}) {
      Vector3f n = Vector3f::Zero(), u = Vector3f::Zero(), v = Vector3f::Zero();
      n[axis] = side;
      u[(axis + 1) % 3] = 1;
      v[(axis + 2) % 3] = side;  // u × v = n keeps the winding outward
      const Vector3f a = n - u - v, b = n + u - v, c = n + u + v, d = n - u + v;
      for (const Vector3f& p : {a, b, c, a, c, d}) addVertex(out, p, n);
    }
  return out;
}

/// Side of a cylinder (top radius 1) or cone (top radius 0) between y = −1 and 1, with its base cap (and top cap).
std::vector<Vertex> roundTriangles(float topRadius) {
  std::vector<Vertex> out;
  const float slope = (1 - topRadius) / 2;  // outward tilt of the side normal
  for (int s = 0; s < kSegments; ++s) {
    const float p0 = 2 * kPi * float(s) / kSegments, p1 = 2 * kPi * float(s + 1) / kSegments;
    const Vector3f r0(std::cos(p0), 0, std::sin(p0)), r1(std::cos(p1), 0, std::sin(p1));
    const Vector3f b0 = r0 - Vector3f::UnitY(), b1 = r1 - Vector3f::UnitY();
    const Vector3f t0 = topRadius * r0 + Vector3f::UnitY(), t1 = topRadius * r1 + Vector3f::UnitY();
    const Vector3f n0 = (r0 + slope * Vector3f::UnitY()).normalized(), n1 = (r1 + slope * Vector3f::UnitY()).normalized();
    addVertex(out, b0, n0), addVertex(out, t1, n1), addVertex(out, b1, n1);
    addVertex(out, b0, n0), addVertex(out, t0, n0), addVertex(out, t1, n1);
    addFlat(out, -Vector3f::UnitY(), b0, b1);
    if (topRadius > 0) addFlat(out, Vector3f::UnitY(), t1, t0);
  }
  return out;
}

std::vector<Vertex> squareTriangles() {
  std::vector<Vertex> out;
  const Vector3f a(-1, 0, -1), b(-1, 0, 1), c(1, 0, 1), d(1, 0, -1);
  for (const Vector3f& p : {a, b, c, a, c, d}) addVertex(out, p, Vector3f::UnitY());
  for (const Vector3f& p : {a, c, b, a, d, c}) addVertex(out, p, -Vector3f::UnitY());
  return out;
}

std::vector<Vertex> hullTriangles(const btConvexShape& shape) {
  btShapeHull hull(&shape);
  std::vector<Vertex> out;
  if (!hull.buildHull(shape.getMargin())) return out;
  const btVector3* vertices = hull.getVertexPointer();
  const unsigned* indices = hull.getIndexPointer();
  const auto point = [&](unsigned i) {
    return Vector3f(float(vertices[i].x()), float(vertices[i].y()), float(vertices[i].z()));
  };
  for (int t = 0; t + 2 < hull.numIndices(); t += 3) {
    const Vector3f a = point(indices[t]), b = point(indices[t + 1]), c = point(indices[t + 2]);
    // btShapeHull does not promise a winding; the shape's origin is inside a convex shape.
    if ((b - a).cross(c - a).dot(a + b + c) >= 0)
      addFlat(out, a, b, c);
    else
      addFlat(out, a, c, b);
  }
  return out;
}

}  // namespace

Mesh::Mesh(const std::vector<Vertex>& triangles) : m_count(int(triangles.size())) {
  glGenVertexArrays(1, &m_vertexArray);
  glGenBuffers(1, &m_buffer);
  glBindVertexArray(m_vertexArray);
  glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(triangles.size() * sizeof(Vertex)), triangles.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, position)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, normal)));
  glBindVertexArray(0);
}

Mesh::~Mesh() {
  glDeleteBuffers(1, &m_buffer);
  glDeleteVertexArrays(1, &m_vertexArray);
}

void Mesh::draw() const {
  glBindVertexArray(m_vertexArray);
  glDrawArrays(GL_TRIANGLES, 0, m_count);
}

MeshLibrary::MeshLibrary()
    : m_sphere(std::make_unique<Mesh>(sphereTriangles())),
      m_box(std::make_unique<Mesh>(boxTriangles())),
      m_cylinder(std::make_unique<Mesh>(roundTriangles(1))),
      m_cone(std::make_unique<Mesh>(roundTriangles(0))),
      m_square(std::make_unique<Mesh>(squareTriangles())) {}

MeshLibrary::~MeshLibrary() = default;

const Mesh& MeshLibrary::hull(const btConvexShape& shape) {
  std::unique_ptr<Mesh>& mesh = m_hulls[&shape];
  if (!mesh) mesh = std::make_unique<Mesh>(hullTriangles(shape));
  return *mesh;
}

}  // namespace propimpact::viewer
