#include "Renderer.h"

#include "Gl.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace propimpact::viewer {

Eigen::Vector4f bodyColor(int dynamicIndex) {
  static const float palette[kPaletteSize][3] = {{0.90f, 0.36f, 0.30f}, {0.30f, 0.62f, 0.92f}, {0.40f, 0.80f, 0.42f},
                                                 {0.95f, 0.75f, 0.25f}, {0.70f, 0.45f, 0.90f}, {0.30f, 0.82f, 0.80f},
                                                 {0.92f, 0.55f, 0.75f}, {0.75f, 0.50f, 0.30f}};
  const float* c = palette[dynamicIndex % kPaletteSize];
  return {c[0], c[1], c[2], 1};
}

Renderer::Renderer() : m_lit(makeLitProgram()), m_lines(makeLineProgram()) {
  glGenFramebuffers(1, &m_framebuffer);
  glGenRenderbuffers(1, &m_color);
  glGenRenderbuffers(1, &m_depth);
  glGenVertexArrays(1, &m_lineArray);
  glGenBuffers(1, &m_lineBuffer);
  glBindVertexArray(m_lineArray);
  glBindBuffer(GL_ARRAY_BUFFER, m_lineBuffer);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex),
                        reinterpret_cast<const void*>(offsetof(LineVertex, position)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(LineVertex),
                        reinterpret_cast<const void*>(offsetof(LineVertex, color)));
  glBindVertexArray(0);
}

Renderer::~Renderer() {
  glDeleteBuffers(1, &m_lineBuffer);
  glDeleteVertexArrays(1, &m_lineArray);
  glDeleteRenderbuffers(1, &m_depth);
  glDeleteRenderbuffers(1, &m_color);
  glDeleteFramebuffers(1, &m_framebuffer);
}

void Renderer::resize(int width, int height) {
  m_width = width;
  m_height = height;
  glBindRenderbuffer(GL_RENDERBUFFER, m_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindRenderbuffer(GL_RENDERBUFFER, m_depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_color);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, m_depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("the OpenGL driver refuses an RGBA8 + depth24 offscreen framebuffer");
}

void Renderer::begin(int width, int height) {
  // A minimized window has a 0 × 0 framebuffer, which no renderbuffer can have.
  width = std::max(width, 1);
  height = std::max(height, 1);
  if (width != m_width || height != m_height) resize(width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, m_width, m_height);
  glClearColor(0.06f, 0.06f, 0.07f, 1);  // behind the panels
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void Renderer::setViewport(const Viewport& v) const {
  const int bottom = m_height - v.y - v.height;  // GL counts rows from the bottom
  glViewport(v.x, bottom, v.width, v.height);
  glScissor(v.x, bottom, v.width, v.height);
  glEnable(GL_SCISSOR_TEST);
}

void Renderer::clearViewport(const Viewport& viewport) {
  setViewport(viewport);
  glClearColor(kBackground[0], kBackground[1], kBackground[2], 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void Renderer::drawItems(const std::vector<DrawItem>& items, const Camera& camera, const Viewport& viewport,
                         const Eigen::Vector3f& lightDirection) {
  setViewport(viewport);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  m_lit.use();
  m_lit.set("viewProjection", Eigen::Matrix4f(camera.projection(viewport.aspect()) * camera.view()));
  m_lit.set("lightDirection", lightDirection);
  const auto pass = [&](bool translucent) {
    for (const DrawItem& item : items)
      if ((item.color.w() < 1) == translucent) {
        m_lit.set("model", item.model);
        m_lit.set("color", item.color);
        item.mesh->draw();
      }
  };
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  pass(true);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  pass(false);
  glBindVertexArray(0);
}

void Renderer::drawLines(const std::vector<LineVertex>& lines, const Camera& camera, const Viewport& viewport,
                         bool onTop) {
  if (lines.empty()) return;
  setViewport(viewport);
  if (onTop)
    glDisable(GL_DEPTH_TEST);
  else
    glEnable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  m_lines.use();
  m_lines.set("viewProjection", Eigen::Matrix4f(camera.projection(viewport.aspect()) * camera.view()));
  glBindVertexArray(m_lineArray);
  glBindBuffer(GL_ARRAY_BUFFER, m_lineBuffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(lines.size() * sizeof(LineVertex)), lines.data(), GL_STREAM_DRAW);
  glDrawArrays(GL_LINES, 0, GLsizei(lines.size()));
  glBindVertexArray(0);
}

void Renderer::endScene() {
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  glViewport(0, 0, m_width, m_height);
}

std::vector<unsigned char> Renderer::readRgb() const {
  std::vector<unsigned char> bottomUp(std::size_t(m_width) * std::size_t(m_height) * 3);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, m_framebuffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, m_width, m_height, GL_RGB, GL_UNSIGNED_BYTE, bottomUp.data());
  std::vector<unsigned char> topDown(bottomUp.size());
  const std::size_t row = std::size_t(m_width) * 3;
  for (int y = 0; y < m_height; ++y)
    std::memcpy(topDown.data() + std::size_t(y) * row, bottomUp.data() + std::size_t(m_height - 1 - y) * row, row);
  return topDown;
}

void Renderer::present() {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, m_framebuffer);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glBlitFramebuffer(0, 0, m_width, m_height, 0, 0, m_width, m_height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace propimpact::viewer
