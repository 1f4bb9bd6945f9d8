#include "Window.h"

#include "Gl.h"

#include <fmt/format.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <string>

namespace propimpact::viewer {
namespace {

/// GLFW reports failures through a callback; the last message explains a
/// failed glfwInit or glfwCreateWindow.
std::string& lastGlfwError() {
  static std::string message;
  return message;
}

void onGlfwError(int code, const char* description) {
  lastGlfwError() = fmt::format("{} (GLFW error {:#x})", description ? description : "unknown", code);
}

}  // namespace

Window::Window(int width, int height, const char* title, bool visible) {
  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit())
    throw DisplayError(fmt::format(
        "no display to open a window on: {}. Set DISPLAY, or run headless under a virtual X server: "
        "xvfb-run -a propimpact-viewer --frames N --screenshot out.png",
        lastGlfwError()));
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  m_window = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (!m_window) {
    const std::string why = lastGlfwError();
    glfwTerminate();
    throw DisplayError(fmt::format("cannot create an OpenGL 3.3 core context: {} (Mesa's software renderer, "
                                   "Debian's libgl1-mesa-dri, provides one)",
                                   why));
  }
  glfwMakeContextCurrent(m_window);
  glfwSwapInterval(visible ? 1 : 0);  // capture runs as fast as it renders
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed: no imgui.ini next to the user's files
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(m_window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

Window::~Window() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(m_window);
  glfwTerminate();
}

bool Window::shouldClose() const { return glfwWindowShouldClose(m_window) != 0; }

void Window::beginFrame() {
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void Window::renderUi() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::swap() { glfwSwapBuffers(m_window); }

void Window::framebufferSize(int& width, int& height) const { glfwGetFramebufferSize(m_window, &width, &height); }

double Window::time() const { return glfwGetTime(); }

}  // namespace propimpact::viewer
