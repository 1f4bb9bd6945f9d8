#pragma once
/// \file Meshes.h
/// Triangle meshes on the GPU: unit primitives that every body of that kind
/// scales (sphere, box, cylinder, cone, square) and one mesh per convex hull.

#include <map>
#include <memory>
#include <vector>

class btConvexShape;

namespace propimpact::viewer {

/// One vertex: position and normal, both in the mesh's frame.
struct Vertex {
  float position[3];
  float normal[3];
};

/// A triangle list in a vertex array. Move-only; frees its buffers.
class Mesh {
 public:
  explicit Mesh(const std::vector<Vertex>& triangles);
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;
  /// Draws the triangles with the bound program.
  void draw() const;

 private:
  unsigned m_vertexArray = 0;
  unsigned m_buffer = 0;
  int m_count = 0;
};

/// The meshes every frame draws with. Needs a current GL context.
class MeshLibrary {
 public:
  MeshLibrary();
  ~MeshLibrary();
  MeshLibrary(const MeshLibrary&) = delete;
  MeshLibrary& operator=(const MeshLibrary&) = delete;

  /// Radius 1 at the origin.
  [[nodiscard]] const Mesh& sphere() const { return *m_sphere; }
  /// Half extents 1.
  [[nodiscard]] const Mesh& box() const { return *m_box; }
  /// Radius 1 about y, y from −1 to 1, capped.
  [[nodiscard]] const Mesh& cylinder() const { return *m_cylinder; }
  /// Base of radius 1 at y = −1, apex at y = 1 (Bullet's cone, centred).
  [[nodiscard]] const Mesh& cone() const { return *m_cone; }
  /// The square [−1, 1]² in the plane y = 0, facing +y (both sides drawn).
  [[nodiscard]] const Mesh& square() const { return *m_square; }
  /// The hull of \p shape, built once per shape (Bullet's btShapeHull).
  [[nodiscard]] const Mesh& hull(const btConvexShape& shape);
  /// Forgets the hulls: after a reset, a new shape may reuse an old address.
  void clearHulls() { m_hulls.clear(); }

 private:
  std::unique_ptr<Mesh> m_sphere, m_box, m_cylinder, m_cone, m_square;
  std::map<const btConvexShape*, std::unique_ptr<Mesh>> m_hulls;
};

}  // namespace propimpact::viewer
