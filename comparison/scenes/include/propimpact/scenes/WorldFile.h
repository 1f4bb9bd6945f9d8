#pragma once
/// \file WorldFile.h
/// Loading a user's `.bullet` file into a World stepped by one of our solvers,
/// with what Bullet's importer drops put back (velocities, damping, factors,
/// inertia, activation state), and writing a scene as a `.bullet` file.
///
/// Bullet's importer (btBulletWorldImporter, Debian's libbullet-extras-dev)
/// creates every rigid body at rest; the velocities are in the file's
/// rigid-body records (btRigidBodyFloatData / btRigidBodyDoubleData), which
/// are matched to the created bodies in record order. The importer reads
/// truncated or corrupt files out of bounds, so a file is first imported in
/// a child process: a crash there becomes a BadWorldFile, never a crash of
/// the caller.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "propimpact/scenes/World.h"

namespace propimpact::scenes {

/// A file that cannot be replayed: missing, not a Bullet file, truncated,
/// no dynamic body, or holding a shape or constraint the importer cannot
/// build. what() is one line naming the file and the reason.
class BadWorldFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// True when this build links Bullet's importer (the `world` subcommand).
[[nodiscard]] bool haveWorldImporter();

/// The importer and the parsed file behind a LoadedWorld (WorldFile.cpp).
struct ImportState;

/// A world loaded from a `.bullet` file. Owns the importer, which owns the
/// bodies, shapes and constraints it created.
class LoadedWorld {
 public:
  /// Loads \p path into a World stepped by \p solverName. Throws BadWorldFile.
  LoadedWorld(const std::string& path, const std::string& solverName);
  ~LoadedWorld();
  LoadedWorld(const LoadedWorld&) = delete;
  LoadedWorld& operator=(const LoadedWorld&) = delete;

  /// The world (its bodies() list is empty: use rigidBodies()).
  [[nodiscard]] World& world() { return *m_world; }
  /// The imported rigid bodies in file record order.
  [[nodiscard]] const std::vector<btRigidBody*>& rigidBodies() const { return m_bodies; }
  /// True when the file stored a double-precision world ("BULLETd").
  [[nodiscard]] bool doublePrecisionFile() const { return m_doubleFile; }
  /// True when the gravity came from the file's world record (otherwise
  /// Bullet's default world gravity, (0, −10, 0), is kept).
  [[nodiscard]] bool gravityFromFile() const { return m_gravityFromFile; }

 private:
  std::unique_ptr<World> m_world;
  std::unique_ptr<ImportState> m_importer;  // after m_world: freed first, detaching its bodies
  std::vector<btRigidBody*> m_bodies;
  bool m_doubleFile = false;
  bool m_gravityFromFile = false;
};

/// Writes every object of \p world (bodies with their velocities, shapes,
/// constraints, gravity and solver settings) to \p path with Bullet's
/// btDefaultSerializer. Throws std::runtime_error when the file cannot be written.
void writeWorldFile(btDiscreteDynamicsWorld& world, const std::string& path);

}  // namespace propimpact::scenes
