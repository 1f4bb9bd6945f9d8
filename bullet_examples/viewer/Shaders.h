#pragma once
/// \file Shaders.h
/// The two GLSL 330 programs the viewer draws with: lit solid shapes and
/// coloured lines.

#include <Eigen/Core>

#include <string>
#include <unordered_map>

namespace propimpact::viewer {

/// A linked GLSL program. Move-only; deletes the program when destroyed.
class Program {
 public:
  /// Compiles and links; throws std::runtime_error with the driver's log.
  Program(const char* vertexSource, const char* fragmentSource);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  /// glUseProgram.
  void use() const;
  /// Sets a uniform of the program in use.
  void set(const char* name, const Eigen::Matrix4f& value);
  void set(const char* name, const Eigen::Vector3f& value);
  void set(const char* name, const Eigen::Vector4f& value);

 private:
  int location(const char* name);
  unsigned m_id = 0;
  std::unordered_map<std::string, int> m_locations;
};

/// Solid shapes: attributes position (0), normal (1); uniforms model,
/// viewProjection, color (rgba), lightDirection (world, towards the light).
[[nodiscard]] Program makeLitProgram();
/// Lines: attributes position (0), color (1); uniform viewProjection.
[[nodiscard]] Program makeLineProgram();

}  // namespace propimpact::viewer
