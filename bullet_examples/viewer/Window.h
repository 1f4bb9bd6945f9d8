#pragma once
/// \file Window.h
/// The window, its OpenGL 3.3 core context and the Dear ImGui context that
/// draws into it; created and destroyed together, in the order GLFW and
/// ImGui's backends need.

#include <stdexcept>

struct GLFWwindow;

namespace propimpact::viewer {

/// No display, or no OpenGL 3.3 context on it: what() is one line saying
/// which and what to do (xvfb-run for headless use).
class DisplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A GLFW window with a current GL 3.3 core context and ImGui on top.
class Window {
 public:
  /// Opens a width × height window (invisible when !visible). Throws DisplayError.
  Window(int width, int height, const char* title, bool visible);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  /// The GLFW handle (input callbacks, key state).
  [[nodiscard]] GLFWwindow* handle() const { return m_window; }
  /// True once the user asked to close the window.
  [[nodiscard]] bool shouldClose() const;
  /// Polls events and starts an ImGui frame.
  void beginFrame();
  /// Renders ImGui's draw lists into the bound framebuffer.
  void renderUi();
  /// Shows the back buffer.
  void swap();
  /// Framebuffer size in pixels.
  void framebufferSize(int& width, int& height) const;
  /// Seconds since the window opened.
  [[nodiscard]] double time() const;

 private:
  GLFWwindow* m_window = nullptr;
};

}  // namespace propimpact::viewer
