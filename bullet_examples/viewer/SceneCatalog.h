#pragma once
/// \file SceneCatalog.h
/// The names the viewer offers: the shared scene library's scenes (named as
/// `propimpact-compare export` names them) with parameters chosen for
/// watching, and the propagative solver's ordering policies.

#include <propimpact/core/ResolveOptions.h>
#include <propimpact/scenes/World.h>

#include <string>
#include <vector>

namespace propimpact::viewer {

/// One entry of the scene menu.
struct SceneInfo {
  std::string name;         ///< --scene value.
  std::string description;  ///< one line for the menu and --list-scenes.
};

/// Every scene, in menu order.
[[nodiscard]] const std::vector<SceneInfo>& sceneCatalog();

/// What buildScene() made.
struct BuiltScene {
  double cor = 1;            ///< the scene's combined restitution.
  bool framed = false;       ///< the scene asks for the camera to frame [lo, hi] (its bodies alone would mislead).
  btVector3 lo{0, 0, 0}, hi{0, 0, 0};
};

/// Builds scene \p name into \p world for substeps of \p dt seconds (scenes
/// placed for their first contact put it about half a second in). Throws
/// std::invalid_argument for an unknown name.
BuiltScene buildScene(const std::string& name, scenes::World& world, double dt);

/// The ordering policies by name ("most-approaching", ...), in enum order.
[[nodiscard]] const std::vector<std::string>& orderingNames();
/// The policy called \p name; throws std::invalid_argument for an unknown one.
[[nodiscard]] OrderingPolicy orderingFromName(const std::string& name);

}  // namespace propimpact::viewer
