#pragma once
/// \file Gl.h
/// OpenGL 3.3 core entry points. libglvnd's libGL exports every core
/// function, so the prototypes are used directly and no loader is needed.
/// GLFW is told not to include a GL header of its own.

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
