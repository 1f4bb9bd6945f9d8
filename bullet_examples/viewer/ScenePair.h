#pragma once
/// \file ScenePair.h
/// The same scene in two worlds, stock Bullet and the propagative solver,
/// stepped in lock-step one substep at a time, with each world's total
/// energy recorded after every substep.

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/World.h>
#include <propimpact/scenes/WorldFile.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "SceneCatalog.h"

namespace propimpact::viewer {

/// Which world: stock on the left, propagative on the right.
enum class Side { Stock = 0, Propagative = 1 };
constexpr std::array<Side, 2> kSides = {Side::Stock, Side::Propagative};

/// What the pair is built from and stepped with.
struct PairConfig {
  std::string scene = "hanging-cradle";  ///< SceneCatalog name, used when worldFile is empty.
  std::string worldFile;                 ///< .bullet file.
  std::string stockSolver = "bullet-si"; ///< left world's solver.
  OrderingPolicy ordering = OrderingPolicy::MostApproaching;
  double cor = -1;                       ///< combined restitution forced on every body; < 0: as built.
  double hz = 240;                       ///< substeps per second.
};

/// Total energy of one world over time: kinetic plus gravitational potential.
struct EnergyTrace {
  static constexpr std::size_t kLength = 1200;  ///< samples kept (one per substep).
  std::vector<float> values;                    ///< oldest first.
  double initial = 0;                           ///< at reset.
  double current = 0;                           ///< after the last substep.
  void reset(double energy);
  void push(double energy);
};

/// Both worlds and the time they have run.
class ScenePair {
 public:
  /// Builds both worlds. Throws scenes::BadWorldFile or std::invalid_argument.
  explicit ScenePair(const PairConfig& config);
  ~ScenePair();
  ScenePair(const ScenePair&) = delete;
  ScenePair& operator=(const ScenePair&) = delete;

  /// Rebuilds both worlds from config() (which the UI may have changed).
  void reset();
  /// One substep of 1/hz in each world. Returns true when the propagative
  /// solver resolved an impact in it (see lastReport()).
  bool substep();
  /// Forces combined restitution \p cor on every contact of both worlds.
  void setRestitution(double cor);
  /// Sets the propagative ordering policy.
  void setOrdering(OrderingPolicy ordering);
  /// Adds a 1 kg ball of \p radius at \p position moving at \p velocity to both worlds.
  void shoot(const btVector3& position, const btVector3& velocity, double radius);

  [[nodiscard]] PairConfig& config() { return m_config; }
  [[nodiscard]] const PairConfig& config() const { return m_config; }
  [[nodiscard]] scenes::World& world(Side side);
  [[nodiscard]] const scenes::World& world(Side side) const;
  /// The propagative solver's report of the last substep.
  [[nodiscard]] const StepReport& lastReport() const { return m_report; }
  [[nodiscard]] const EnergyTrace& energy(Side side) const { return m_energy[index(side)]; }
  /// Wall time of the last substep of each world (ms).
  [[nodiscard]] double stepMillis(Side side) const { return m_stepMillis[index(side)]; }
  /// Simulated time since reset (s) and substeps taken.
  [[nodiscard]] double time() const { return m_time; }
  [[nodiscard]] long steps() const { return m_steps; }
  /// The scene's own combined restitution (−1 for a file: per body).
  [[nodiscard]] double builtCor() const { return m_built.cor; }
  /// What the scene catalog said about the scene (framed box); default for a file.
  [[nodiscard]] const BuiltScene& built() const { return m_built; }
  /// Incremented by every reset: caches keyed by shape address must be dropped.
  [[nodiscard]] int generation() const { return m_generation; }

 private:
  static std::size_t index(Side side) { return std::size_t(side); }
  struct Holder;
  void build(Side side);

  PairConfig m_config;
  std::array<std::unique_ptr<Holder>, 2> m_worlds;
  std::array<EnergyTrace, 2> m_energy;
  std::array<double, 2> m_stepMillis{};
  StepReport m_report;
  double m_time = 0;
  long m_steps = 0;
  BuiltScene m_built;
  int m_generation = 0;
};

/// Kinetic ½ m v² + ½ ωᵀ I ω plus potential −m g·x (each body under its own gravity) of every dynamic body (J).
[[nodiscard]] double totalEnergy(const btDiscreteDynamicsWorld& world);

}  // namespace propimpact::viewer
