#include "Shaders.h"

#include "Gl.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace propimpact::viewer {
namespace {

// Lambert with a hemisphere ambient term: cheap on Mesa's software renderer
// and enough to read the shape of a ball or a box.
constexpr const char* kLitVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 model;
uniform mat4 viewProjection;
out vec3 worldNormal;
void main() {
  worldNormal = mat3(model) * normal;
  gl_Position = viewProjection * model * vec4(position, 1.0);
}
)";

constexpr const char* kLitFragment = R"(#version 330 core
in vec3 worldNormal;
uniform vec4 color;
uniform vec3 lightDirection;
out vec4 fragment;
void main() {
  vec3 n = normalize(worldNormal);
  float diffuse = max(dot(n, lightDirection), 0.0);
  float sky = 0.5 + 0.5 * n.y;
  vec3 lit = color.rgb * (0.25 + 0.15 * sky + 0.7 * diffuse);
  fragment = vec4(lit, color.a);
}
)";

constexpr const char* kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
uniform mat4 viewProjection;
out vec4 lineColor;
void main() {
  lineColor = color;
  gl_Position = viewProjection * vec4(position, 1.0);
}
)";

constexpr const char* kLineFragment = R"(#version 330 core
in vec4 lineColor;
out vec4 fragment;
void main() { fragment = lineColor; }
)";

GLuint compile(GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(std::size_t(std::max(length, 1)));
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader does not compile: ") + log.data());
  }
  return shader;
}

}  // namespace

Program::Program(const char* vertexSource, const char* fragmentSource) {
  const GLuint vertex = compile(GL_VERTEX_SHADER, vertexSource);
  const GLuint fragment = compile(GL_FRAGMENT_SHADER, fragmentSource);
  m_id = glCreateProgram();
  glAttachShader(m_id, vertex);
  glAttachShader(m_id, fragment);
  glLinkProgram(m_id);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = 0;
  glGetProgramiv(m_id, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetProgramiv(m_id, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(std::size_t(std::max(length, 1)));
    glGetProgramInfoLog(m_id, length, nullptr, log.data());
    glDeleteProgram(m_id);
    throw std::runtime_error(std::string("shader program does not link: ") + log.data());
  }
}

Program::~Program() { glDeleteProgram(m_id); }

void Program::use() const { glUseProgram(m_id); }

int Program::location(const char* name) {
  const auto found = m_locations.find(name);
  if (found != m_locations.end()) return found->second;
  const int at = glGetUniformLocation(m_id, name);
  m_locations.emplace(name, at);
  return at;
}

void Program::set(const char* name, const Eigen::Matrix4f& value) {
  glUniformMatrix4fv(location(name), 1, GL_FALSE, value.data());  // Eigen is column-major, as GL
}
void Program::set(const char* name, const Eigen::Vector3f& value) { glUniform3fv(location(name), 1, value.data()); }
void Program::set(const char* name, const Eigen::Vector4f& value) { glUniform4fv(location(name), 1, value.data()); }

Program makeLitProgram() { return Program(kLitVertex, kLitFragment); }
Program makeLineProgram() { return Program(kLineVertex, kLineFragment); }

}  // namespace propimpact::viewer
